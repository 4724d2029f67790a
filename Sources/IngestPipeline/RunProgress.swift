/// Where a run is, for a live status line or progress events: told at the
/// start of every phase, and while stock feeds are parsed, after each
/// pharmacy. Phases without a measure of their own have `totalBytes` 0.
public struct RunProgress: Sendable, Equatable {
    public var phase: String
    public var doneBytes: Int64
    public var totalBytes: Int64
    /// Offers accepted so far in this phase.
    public var offers: Int

    public init(phase: String, doneBytes: Int64 = 0, totalBytes: Int64 = 0, offers: Int = 0) {
        self.phase = phase
        self.doneBytes = doneBytes
        self.totalBytes = totalBytes
        self.offers = offers
    }

    /// The share done, 0 to 1; nil when the phase has no measure.
    public var fraction: Double? {
        totalBytes > 0 ? min(1, Double(doneBytes) / Double(totalBytes)) : nil
    }
}
