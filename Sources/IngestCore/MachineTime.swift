import Foundation

/// Times as the machine outputs write them (JSON logs, the run report, the
/// phase log, manifests, the access log, version names): one form for each
/// use, made here only, so a shipper or a script reads them the same way
/// whichever output it took them from. Foundation's format styles are values
/// (no shared formatter, no lock).
public enum MachineTime {
    /// UTC with milliseconds: `2026-11-24T01:02:03.456Z` (logs, the phase log).
    public static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// UTC to the second: `2026-11-24T01:02:03Z` (manifests, quarantine entries, the access log).
    public static func utcSeconds(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    /// A time written in ISO 8601 with an offset or Z, with or without
    /// fractions of a second; nil for anything else.
    public static func date(iso8601 text: String) -> Date? {
        try? Date.ISO8601FormatStyle().parse(text) // nil: not such a time, which the caller says how to treat
    }

    /// `20261124T010203Z`: a snapshot version's time, sorting as it reads.
    public static func versionStamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(dateSeparator: .omitted, dateTimeSeparator: .standard, timeSeparator: .omitted, timeZone: .gmt))
    }

    /// A duration in seconds to the millisecond: a measurement, not a float's noise.
    public static func seconds(_ interval: TimeInterval) -> Double {
        (interval * 1000).rounded() / 1000
    }
}
