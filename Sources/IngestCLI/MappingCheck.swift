import Foundation
import IngestAdapters
import IngestCore

/// `ingest check --mapping FILE [FEED…]` (FEEDS.md §12): a mapping judged
/// before any run reads a feed with it, and with feeds, each feed's header
/// held to it. A mapping error exits 78; a feed whose header the mapping
/// cannot read exits 4, as `check` does for a file that would be rejected;
/// a registry or register the run would reject whole for its rejects
/// (FEEDS.md §12.1) exits 65: nothing of it would be loaded.
struct MappingCheck {
    let path: String
    let feeds: [String]
    /// The run's reject limit (`--max-reject-rate`), for a mapping with none of its own.
    var maxRejectRatePercent = 5

    /// The lines to print and the exit status.
    func run() -> (lines: [String], status: ExitStatus) {
        let mapping: StockFeedMapping
        do { mapping = try MappingLoader.load(path: path) } catch {
            return (["ingest: mapping error: \(error)"], .configuration)
        }
        let adapter = AdapterCatalog.mappedAdapters([mapping])[0]
        var lines = ["\(mapping.file): valid, adapter \(mapping.adapterName)" + (mapping.kind == .stock ? "" : " (\(mapping.kind))")]
        var status = ExitStatus.success
        for feed in feeds {
            let name = (feed as NSString).lastPathComponent
            do {
                let file = try FeedFile.open(path: feed, name: name)
                if !adapter.recognises(file) { lines.append("\(name): not claimed by this mapping (file name or required columns)") }
                if let stock = adapter as? any StockFeedAdapter {
                    let header = try stock.readHeader(file)
                    lines.append("\(name): the header matches; pharmacy \(header.pharmacyID), exported \(header.exportedAt.iso8601)")
                } else {
                    // A registry or register has no header to hold: its records are read and counted.
                    let counts = Self.counts(adapter, file, limit: mapping.maxRejectRatePercent ?? maxRejectRatePercent)
                    if let failure = counts.failure {
                        lines.append("\(name): \(failure.reason.rawValue): \(failure.message)")
                        if status == .success || failure.reason == .tooManyRejects { status = failure.reason == .tooManyRejects ? .emptyResult : .fileRejected }
                        continue
                    }
                    lines.append("\(name): \(counts.read) records read, \(counts.accepted) accepted, \(counts.read - counts.accepted) rejected")
                }
            } catch {
                lines.append("\(name): \(error.reason.rawValue): \(error.message)")
                status = .fileRejected
            }
        }
        return (lines, status)
    }

    private static func counts<Adapter: FeedAdapter>(_ adapter: Adapter, _ file: FeedFile, limit: Int) -> (read: Int, accepted: Int, failure: FeedFailure?) {
        var output = adapter.parse(file)
        output.failIfTooManyRejects(limit: limit)
        return (output.read, output.accepted, output.failure)
    }
}
