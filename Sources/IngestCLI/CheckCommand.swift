import ArgumentParser
import Foundation
import IngestAdapters
import IngestCore

/// `ingest check FILE…`: run files through their adapters without building
/// anything: what a feed holds, what would be rejected and why. Records are
/// counted, not kept, so a feed of any size is checked in flat memory.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Parse feed files with their adapters and report counts and rejects; nothing is written.",
        discussion: ExitStatus.helpText
    )

    @OptionGroup var mappingsOptions: MappingsOptions

    @Argument(help: "Feed files to check.")
    var files: [String]

    func validate() throws {
        if files.isEmpty { throw ValidationError("name at least one file") }
    }

    func run() throws {
        let catalog = try mappingsOptions.loadCatalog()
        var worst = ExitStatus.success
        for path in files {
            let name = (path as NSString).lastPathComponent
            let file: FeedFile
            do { file = try FeedFile.open(path: path, name: name) } catch {
                print("\(name): \(error.reason): \(error.message)")
                worst = .inputMissing
                continue
            }
            let claim: AdapterCatalog.Claim
            do { claim = try catalog.claim(file) } catch {
                print("\(name): \(error)")
                worst = .configuration
                continue
            }
            switch claim {
            case .stock(let adapter):
                var output = FeedOutput<StockOffer>(file: name, retainsRecords: false)
                let header = adapter.parse(file, into: &output)
                report(name, adapter: adapter.name, output: output, detail: header.map { "pharmacy \($0.pharmacyID), exported \($0.exportedAt.iso8601)" })
            case .pharmacyRegistry(let adapter):
                report(name, adapter: adapter.name, output: adapter.parse(file), detail: nil)
            case .reimbursementList(let adapter):
                let (output, validFrom) = adapter.parse(file)
                report(name, adapter: adapter.name, output: output, detail: validFrom.map { "valid from \($0)" })
            case .atc(let adapter):
                report(name, adapter: adapter.name, output: adapter.parse(file), detail: nil)
            case .icd10(let adapter):
                report(name, adapter: adapter.name, output: adapter.parse(file), detail: nil)
            case .gs1(let adapter):
                report(name, adapter: adapter.name, output: adapter.parse(file), detail: nil)
            case .unrecognised:
                print("\(name): unrecognised (no adapter claims it)")
            }
        }
        if worst != .success { throw worst.exitCode }
    }

    private func report<Record>(_ name: String, adapter: String, output: FeedOutput<Record>, detail: String?) {
        let outcome = output.failure.map { "REJECTED WHOLE: \($0.reason) at line \($0.line): \($0.message)" } ?? "ok"
        print("\(name): \(adapter)\(detail.map { ", \($0)" } ?? ""): \(outcome)")
        print("  read \(output.read), accepted \(output.accepted), rejected \(output.rejected)"
              + (output.warnings.isEmpty ? "" : ", warnings \(output.warnings.count)"))
        let byReason = Dictionary(grouping: output.rejects, by: \.reason)
        for reason in byReason.keys.sorted() {
            print("  \(reason): \(byReason[reason]!.count)")
            for reject in byReason[reason]!.prefix(3) {
                print("    line \(reject.line) [\(reject.key)] \(reject.field.map { "\($0): " } ?? "")\(reject.message)")
            }
        }
    }
}

func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
