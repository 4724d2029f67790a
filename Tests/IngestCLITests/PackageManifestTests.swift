import Foundation
import IngestTestSupport
import Testing

/// Issue 47, item 7: Package.swift says what each target uses. A module
/// imported but not declared builds only while another target happens to
/// bring it in; one declared but never imported is a dependency nobody
/// needs. Both once crept in (IngestPipeline declared TOMLKit, IngestCLI
/// imported IngestAdapters undeclared).
@Suite struct PackageManifestTests {
    /// Modules of the platform, the toolchain and the standard library: imported without a declaration.
    private static let platform: Set<String> = ["Foundation", "FoundationEssentials", "Glibc", "Darwin", "Synchronization", "Dispatch",
                                                "Testing", "XCTest", "_Concurrency", "os"]

    private struct Target {
        var name: String
        var path: String
        var declared: Set<String>
    }

    /// The library and executable targets, with the modules their dependencies give.
    private func targets() throws -> [Target] {
        let manifest = try String(contentsOfFile: "\(RepositoryFiles.root)/Package.swift", encoding: .utf8)
        var found: [Target] = []
        for match in manifest.matches(of: /\.(target|executableTarget)\(\s*name: "([A-Za-z]+)",\s*dependencies: \[([^\]]*)\]/) {
            // Every quoted name in the list but the packages': the targets and products it uses.
            let dependencies = String(match.3).replacing(/package: "[^"]*"/, with: "")
            let declared = Set(dependencies.matches(of: /"([A-Za-z][A-Za-z0-9]*)"/).map { String($0.1) })
            let name = String(match.2)
            let path = name == "IngestTestSupport" ? "Tests/IngestTestSupport" : "Sources/\(name)"
            found.append(Target(name: name, path: path, declared: declared))
        }
        return found
    }

    private func imports(under path: String) throws -> Set<String> {
        let root = "\(RepositoryFiles.root)/\(path)"
        var modules = Set<String>()
        for file in try FileManager.default.subpathsOfDirectory(atPath: root) where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: "\(root)/\(file)", encoding: .utf8)
            modules.formUnion(text.matches(of: /(?m)^(?:@testable |@_exported |package |public )?import ([A-Za-z_][A-Za-z0-9_]*)/).map { String($0.1) })
        }
        return modules
    }

    @Test func everyTargetDeclaresWhatItImportsAndImportsWhatItDeclares() throws {
        let targets = try targets()
        #expect(targets.count >= 10, "targets read from Package.swift: \(targets.map(\.name))")
        let local = Set(targets.map(\.name))
        for target in targets {
            let imported = try imports(under: target.path).subtracting(Self.platform).subtracting([target.name])
            let declared = target.declared
            let undeclared = imported.subtracting(declared).sorted()
            #expect(undeclared.isEmpty, "\(target.name) imports \(undeclared) without declaring them in Package.swift")
            // A product may bring several modules; a target of this package must be imported where it is declared.
            let unused = declared.intersection(local.union(["CSQLite", "CLibXML2", "CCSV", "CYAJL", "CMalloc", "TOMLKit"])).subtracting(imported).sorted()
            #expect(unused.isEmpty, "\(target.name) declares \(unused) in Package.swift and never imports them")
        }
    }
}
