import Foundation
import IngestTestSupport
import Testing

/// Issue 47, item 8: the docs name things that exist. A type, a target, a
/// make target or a fuzz target renamed or removed in the code leaves the
/// README or docs/ naming something a newcomer cannot find; these tests
/// fail then, naming the doc and the name.
@Suite struct DocumentationNamesTests {
    /// The README and every doc in docs/.
    private func documents() throws -> [String] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: "\(RepositoryFiles.root)/docs")
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/\($0)" }
    }

    private func text(_ document: String) throws -> String {
        try String(contentsOfFile: "\(RepositoryFiles.root)/\(document)", encoding: .utf8)
    }

    /// Every Swift file under a folder, read whole.
    private func swiftSources(under folder: String) throws -> [String] {
        let root = "\(RepositoryFiles.root)/\(folder)"
        let files = try FileManager.default.subpathsOfDirectory(atPath: root).filter { $0.hasSuffix(".swift") && !$0.hasPrefix(".build") }
        return try files.map { try String(contentsOfFile: "\(root)/\($0)", encoding: .utf8) }
    }

    /// Code spans in a document: `Name` or `Name.member`.
    private func codeSpans(_ text: String) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    @Test func everyTypeADocNamesIsDeclared() throws {
        let sources = try (swiftSources(under: "Sources") + swiftSources(under: "Tests") + swiftSources(under: "Fuzz/Sources")).joined(separator: "\n")
        // Declared types, and source files by name (a doc may name the file an answer type lives in).
        var declared = Set(sources.matches(of: /(?:struct|class|enum|protocol|actor|typealias|extension)\s+([A-Z][A-Za-z0-9]*)/).map { String($0.1) })
        declared.formUnion(try FileManager.default.subpathsOfDirectory(atPath: "\(RepositoryFiles.root)/Sources").filter { $0.hasSuffix(".swift") }
            .map { (($0 as NSString).lastPathComponent as NSString).deletingPathExtension })
        // Types of the libraries and the platform that docs name on purpose.
        let external: Set<String> = ["JSONEncoder", "NSRegularExpression", "ByteBuffer", "ArgumentParserToolInfo", "FileHandle", "NIOThreadPool",
                                     "ParsableCommand", "LogHandler", "NSString", "JSONSerialization", "DateFormatter", "MultiThreadedEventLoopGroup",
                                     "OpenAPI", "SwiftPM", "BuildInfoPlugin", "GenerateManual", "LibFuzzer", "ProcessInfo", "HTTPClient",
                                     "ReadWritePaths", "UnicodeScalarView", "RequiresMountsFor", "EnvironmentFile", "ProtectSystem"]
        let targets = try targetNames()
        var missing: [String] = []
        for document in try documents() {
            for span in codeSpans(try text(document)) {
                // A type name: two capitalised words run together (`SnapshotWriter`, `RAXStockAdapter`), alone or before a member.
                let name = String(span.prefix { $0 != "." && $0 != "(" && $0 != "<" })
                guard name.wholeMatch(of: /[A-Z][A-Za-z0-9]*[a-z][A-Z][A-Za-z0-9]*/) != nil, !name.contains(" ") else { continue }
                if !declared.contains(name), !external.contains(name), !targets.contains(name) { missing.append("\(document): \(name)") }
            }
        }
        #expect(missing.isEmpty, "docs name types that are not declared: \(missing)")
    }

    /// Targets and products, as Package.swift names them.
    private func targetNames() throws -> Set<String> {
        Set(try text("Package.swift").matches(of: /name: "([A-Za-z0-9]+)"/).map { String($0.1) })
    }

    @Test func everyTargetIsInTheArchitectureDocAndEveryOneItNamesExists() throws {
        let architecture = try text("docs/ARCHITECTURE.md")
        let manifest = try text("Package.swift")
        let declared = Set(manifest.matches(of: /\.(?:target|executableTarget|systemLibrary)\(\s*name: "([A-Za-z0-9]+)"/).map { String($0.1) })
        #expect(declared.count >= 10, "targets read from Package.swift: \(declared.sorted())")
        for target in declared.sorted() {
            #expect(architecture.contains("`\(target)`"), "docs/ARCHITECTURE.md does not name the target \(target)")
        }
        let named = Set(architecture.matches(of: /`(Ingest[A-Za-z]+|C[A-Z][A-Za-z0-9]+)`/).map { String($0.1) })
        let types = Set(try swiftSources(under: "Sources").joined().matches(of: /(?:struct|class|enum|protocol|actor)\s+([A-Z][A-Za-z0-9]*)/).map { String($0.1) })
        for name in named.sorted() where !declared.contains(name) && !types.contains(name) {
            Issue.record("docs/ARCHITECTURE.md names \(name), which is neither a target nor a type")
        }
    }

    @Test func everyMakeTargetADocNamesExists() throws {
        let makefile = try text("Makefile")
        let targets = Set(makefile.matches(of: /(?m)^([a-z][a-z0-9-]*):/).map { String($0.1) })
        var missing: [String] = []
        for document in try documents() {
            // `make X` in code: prose ("make sure") is not a command.
            for match in try text(document).matches(of: /`(?:[A-Z_]+=[^ `]* )*make ([a-z][a-z0-9-]*)/) {
                let name = String(match.1)
                if !targets.contains(name) { missing.append("\(document): make \(name)") }
            }
        }
        #expect(missing.isEmpty, "docs name make targets the Makefile lacks: \(missing)")
    }

    @Test func theFuzzTargetsTheRunbookListsAreTheHarnesssOwn() throws {
        let harness = try text("Fuzz/Sources/IngestFuzz/FuzzTarget.swift")
        let cases = try #require(harness.firstMatch(of: /case ([a-z0-9, ]+)\n/)).1.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let operations = try text("docs/OPERATIONS.md").replacingOccurrences(of: "\n", with: " ")
        let listed = try #require(operations.firstMatch(of: /`INGEST_FUZZ_TARGET` = ([a-z0-9, ]+)\)/)).1.split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(listed == cases, "docs/OPERATIONS.md lists \(listed); the harness has \(cases)")
    }
}
