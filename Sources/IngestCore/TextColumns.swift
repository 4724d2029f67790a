/// Padding for the plain-text tables an operator reads (the run's report,
/// `ingest snapshots list`, `ingest adapters`): columns joined by spaces, as
/// wide as their longest value, a value never cut, counted in characters.
///
/// Hand-written, not ordo-one/TextTable: those tables carry lines inside
/// them (a feed's reject reasons and message under its row, a totals line,
/// the `*` of current) and keep the two-space gaps the tests check exactly;
/// TextTable's plain style prints a row per record with one-space gaps.
public enum TextColumns {
    /// `text` then spaces up to `width`.
    public static func left(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }

    /// Spaces up to `width`, then `text` (numbers).
    public static func right(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
