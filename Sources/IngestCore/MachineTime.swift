import Foundation

/// Times as the machine outputs write them (JSON logs, the run report, the
/// phase log): one form everywhere, so a shipper or a script reads them the
/// same way whichever output it took them from.
public enum MachineTime {
    /// UTC with milliseconds: `2026-11-24T01:02:03.456Z`.
    public static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// A duration in seconds to the millisecond: a measurement, not a float's noise.
    public static func seconds(_ interval: TimeInterval) -> Double {
        (interval * 1000).rounded() / 1000
    }
}
