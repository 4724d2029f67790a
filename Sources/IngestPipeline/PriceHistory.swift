import Foundation
import IngestCore
import IngestSnapshot

/// The `price_history` table (SNAPSHOT.md "Price history"): one row per
/// shelf price an offer has had, `since` the export time of the feed that
/// first showed it, carried from night to night.
///
/// Built in SQL once tonight's offers and pharmacies are written, with
/// `current` attached read-only: yesterday's rows of every offer the
/// snapshot still holds, then a row for each offer whose price differs from
/// its latest one (or that has none), then the rows older than the window
/// dropped but the one in force at its start. A row per offer per night
/// would be read back through the offers' primary key: one index seek per
/// offer, no Swift on the per-row path.
///
/// History follows the offers: an offer no longer in the snapshot (its
/// pharmacy dropped as stale, the item no longer sold there) takes its rows
/// with it, so every row points at an offer a reader can see.
enum PriceHistory {
    /// Fills `price_history` in the snapshot at `writer` (after `finish()`:
    /// outside any transaction, since SQLite attaches only there).
    static func write(to writer: SnapshotWriter, previous: PreviousSnapshot?, asOf: ExportTimestamp, keepDays: Int) throws {
        let database = writer.database
        if let previous {
            try database.execute("ATTACH DATABASE '\(Self.readOnlyURI(previous.path).replacingOccurrences(of: "'", with: "''"))' AS old")
        }
        defer { if previous != nil { try? database.execute("DETACH DATABASE old") } } // a failed detach leaves only a handle the close releases
        try database.execute("BEGIN")
        do {
            let tonight = SQLiteStatement.Value.text(asOf.iso8601)
            if let previous, try previous.hasTable("price_history") {
                // Yesterday's rows whole, record by record (SQLite's transfer optimisation: the
                // same table definition, no WHERE), then those that lost their offer: all of a
                // pharmacy no longer held, and the items a pharmacy loaded tonight no longer sells.
                // A carried pharmacy's offers are yesterday's: none of its rows can go.
                try database.execute("INSERT INTO main.price_history SELECT * FROM old.price_history")
                try database.execute("""
                    DELETE FROM main.price_history WHERE pharmacy_id IN (SELECT id FROM old.pharmacies EXCEPT SELECT id FROM main.pharmacies)
                    """)
                try database.prepare("""
                    DELETE FROM main.price_history WHERE pharmacy_id IN (SELECT id FROM main.pharmacies WHERE loaded_at = ?1) AND NOT EXISTS (
                        SELECT 1 FROM main.offers AS o WHERE o.pharmacy_id = price_history.pharmacy_id AND o.aptcode = price_history.aptcode)
                    """).run(tonight)
            } else if previous != nil {
                // A `current` from before schema 4: its offers are each one's first known price, since its pharmacy's export.
                try database.execute("""
                    INSERT INTO price_history(pharmacy_id, aptcode, since, price_cents)
                    SELECT o.pharmacy_id, o.aptcode, p.last_refresh, o.price_cents
                    FROM old.offers AS o JOIN old.pharmacies AS p ON p.id = o.pharmacy_id
                    WHERE EXISTS (SELECT 1 FROM main.offers AS n WHERE n.pharmacy_id = o.pharmacy_id AND n.aptcode = o.aptcode)
                    """)
            }
            if previous == nil {
                // A first night: every offer's one row, in the table's key order (the offers'), nothing to compare.
                try database.execute("""
                    INSERT INTO price_history(pharmacy_id, aptcode, since, price_cents)
                    SELECT o.pharmacy_id, o.aptcode, p.last_refresh, o.price_cents FROM offers AS o JOIN pharmacies AS p ON p.id = o.pharmacy_id
                    """)
            } else {
                // An offer's latest row is yesterday's shelf price (each night makes it so), so a
                // row is due where yesterday had no such offer or another price. Only pharmacies
                // loaded tonight can have one; a carried pharmacy's offers are yesterday's.
                try database.prepare("""
                    INSERT OR IGNORE INTO price_history(pharmacy_id, aptcode, since, price_cents)
                    SELECT o.pharmacy_id, o.aptcode, p.last_refresh, o.price_cents
                    FROM pharmacies AS p JOIN offers AS o ON o.pharmacy_id = p.id
                    WHERE p.loaded_at = ?1 AND o.price_cents IS NOT (SELECT h.price_cents FROM price_history AS h
                        WHERE h.pharmacy_id = o.pharmacy_id AND h.aptcode = o.aptcode ORDER BY h.since DESC LIMIT 1)
                    """).run(tonight)
            }
            let cutoff = ExportTimestamp.tallinnTime(Date(timeIntervalSince1970: TimeInterval(asOf.epochSeconds - Int64(keepDays) * 86_400))).iso8601
            let prune = try database.prepare("""
                DELETE FROM price_history WHERE since < ?1 AND since < (
                    SELECT max(h.since) FROM price_history AS h
                    WHERE h.pharmacy_id = price_history.pharmacy_id AND h.aptcode = price_history.aptcode AND h.since < ?1)
                """)
            try prune.run(.text(cutoff))
            try database.execute("COMMIT")
        } catch {
            try? database.execute("ROLLBACK") // the first error is the one to report; the staging file is removed anyway
            throw error
        }
    }

    /// `file:` URI that opens `path` read-only: a published snapshot is never opened for writing.
    static func readOnlyURI(_ path: String) -> String {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~/"))
        return "file:" + (path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path) + "?mode=ro"
    }
}
