import Foundation
import IngestAdapters

/// `ingest check --mapping FILE [FEED…]` (FEEDS.md §12): a mapping judged
/// before any run reads a feed with it, and with feeds, each feed's header
/// held to it. A mapping error exits 78; a feed whose header the mapping
/// cannot read exits 4, as `check` does for a file that would be rejected.
struct MappingCheck {
    let path: String
    let feeds: [String]

    /// The lines to print and the exit status.
    func run() -> (lines: [String], status: ExitStatus) {
        let mapping: StockFeedMapping
        do { mapping = try MappingLoader.load(path: path) } catch {
            return (["ingest: mapping error: \(error)"], .configuration)
        }
        let adapter: any StockFeedAdapter = switch mapping.layout {
        case .delimited, .fixedWidth: MappedCSVStockAdapter(mapping: mapping)
        case .json: MappedJSONStockAdapter(mapping: mapping)
        case .xml: MappedXMLStockAdapter(mapping: mapping)
        }
        var lines = ["\(mapping.file): valid, adapter \(mapping.adapterName)"]
        var status = ExitStatus.success
        for feed in feeds {
            let name = (feed as NSString).lastPathComponent
            do {
                let file = try FeedFile.open(path: feed, name: name)
                if !adapter.recognises(file) { lines.append("\(name): not claimed by this mapping (file name or required columns)") }
                let header = try adapter.readHeader(file)
                lines.append("\(name): the header matches; pharmacy \(header.pharmacyID), exported \(header.exportedAt.iso8601)")
            } catch {
                lines.append("\(name): \(error.reason.rawValue): \(error.message)")
                status = .fileRejected
            }
        }
        return (lines, status)
    }
}
