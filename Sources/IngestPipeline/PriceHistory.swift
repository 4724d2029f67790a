import Foundation
import IngestCore
import IngestSnapshot

/// The `price_history` table (SNAPSHOT.md "Price history", schema 5): the
/// prices an offer had before the one in force (`offers.price_since`), each
/// with its own since, carried from night to night.
///
/// Built once tonight's offers and pharmacies are written, with `current`
/// attached read-only: yesterday's rows copied whole, tonight's changes
/// applied (found by `PriceHistoryDelta` while the offers were written:
/// replaced prices, items no longer sold), pharmacies no longer held
/// removed, then the rows whose price went out of force before the window
/// dropped. A first night writes none: the file grows with what changed,
/// not with what is sold (schema 4's row per offer was 270 MB of the
/// national snapshot's 577 MB).
///
/// History follows the offers: an offer no longer in the snapshot (its
/// pharmacy dropped as stale, the item no longer sold there) takes its rows
/// with it, so every row points at an offer a reader can see.
enum PriceHistory {
    /// Fills `price_history` in the snapshot at `writer` (after `finish()`:
    /// outside any transaction, since SQLite attaches only there).
    static func write(to writer: SnapshotWriter, previous: PreviousSnapshot?, asOf: ExportTimestamp, keepDays: Int) throws {
        guard let previous else { return } // a first night: no price has been replaced yet
        let database = writer.database
        try database.execute("ATTACH DATABASE '\(Self.readOnlyURI(previous.path).replacingOccurrences(of: "'", with: "''"))' AS old")
        defer { try? database.execute("DETACH DATABASE old") } // a failed detach leaves only a handle the close releases
        try database.inTransaction {
            switch previous.hasPriceHistory ? previous.priceSince : .lastRefresh {
            case .column:
                // Yesterday's rows whole, record by record (SQLite's transfer optimisation: the
                // same table definition, no WHERE).
                try database.execute("INSERT INTO main.price_history SELECT * FROM old.price_history")
            case .newestHistoryRow:
                // A schema-4 `current`: each offer's newest row became its `price_since` (the
                // merge and the carry-over read it so); the older rows stay history.
                try database.execute("""
                    INSERT INTO main.price_history(pharmacy_id, aptcode, since, price_cents)
                    SELECT h.pharmacy_id, h.aptcode, h.since, h.price_cents FROM old.price_history AS h
                    WHERE h.since < (SELECT max(x.since) FROM old.price_history AS x WHERE x.pharmacy_id = h.pharmacy_id AND x.aptcode = h.aptcode)
                    """)
            case .lastRefresh:
                break // before schema 4 (or in a file without the table) no earlier price was kept
            }
            // Tonight's changes, which the load found by merging each fresh pharmacy's offers with
            // yesterday's: the rows of pharmacies no longer held and of items no longer sold go, a
            // row comes for each replaced price.
            try database.execute("""
                DELETE FROM main.price_history WHERE pharmacy_id IN (SELECT id FROM old.pharmacies EXCEPT SELECT id FROM main.pharmacies);
                DELETE FROM main.price_history WHERE (pharmacy_id, aptcode) IN (SELECT pharmacy_id, aptcode FROM temp.history_gone);
                INSERT INTO main.price_history(pharmacy_id, aptcode, since, price_cents)
                SELECT pharmacy_id, aptcode, since, price_cents FROM temp.history_new ORDER BY pharmacy_id, aptcode, since;
                """)
            // The two temporary tables stay until the writer's connection closes (it removes
            // SQLite's temporary file): dropping them fails while a cached statement on them lives.
            //
            // A row's price held until the next row's since, the last row's until its offer's
            // `price_since`; it goes once that end is before the window (schema 4 kept the
            // same rows: those after the window's start and the one in force at it).
            let cutoff = ExportTimestamp.tallinnTime(Date(timeIntervalSince1970: TimeInterval(asOf.epochSeconds - Int64(keepDays) * 86_400))).iso8601
            try database.prepare("""
                DELETE FROM price_history WHERE since < ?1 AND coalesce(
                    (SELECT min(h.since) FROM price_history AS h
                     WHERE h.pharmacy_id = price_history.pharmacy_id AND h.aptcode = price_history.aptcode AND h.since > price_history.since),
                    (SELECT o.price_since FROM offers AS o WHERE o.pharmacy_id = price_history.pharmacy_id AND o.aptcode = price_history.aptcode)) < ?1
                """).run(.text(cutoff))
        }
    }

    /// `file:` URI that opens `path` read-only: a published snapshot is never opened for writing.
    static func readOnlyURI(_ path: String) -> String {
        SQLiteDatabase.uri(path, "mode=ro")
    }
}
