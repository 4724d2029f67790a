import ArgumentParser
import Foundation
import IngestCore

/// `--as-of`: the run's notion of "now", to replay a past night or build a
/// database of another era. A date alone is that day's midnight in Tallinn,
/// the morning run after the night's exports; a time without an offset is
/// Tallinn time too, as the pharmacies' exports are.
struct AsOfTime: ExpressibleByArgument {
    let date: Date

    init?(argument: String) {
        let text = argument.count == 10 ? argument + "T00:00:00" : argument
        guard let timestamp = ExportTimestamp.parseISO8601(text) else { return nil }
        date = Date(timeIntervalSince1970: TimeInterval(timestamp.epochSeconds))
    }

    static var defaultValueDescription: String { "now" }
}
