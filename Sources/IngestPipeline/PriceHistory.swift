import Foundation
import IngestCore
import IngestSnapshot

/// The `price_history` table (SNAPSHOT.md "Price history"): one row per
/// shelf price an offer has had, `since` the export time of the feed that
/// first showed it, carried from night to night.
///
/// Built once tonight's offers and pharmacies are written, with `current`
/// attached read-only: yesterday's rows copied whole, tonight's changes
/// applied (found by `PriceHistoryDelta` while the offers were written: new
/// or changed prices, items no longer sold), pharmacies no longer held
/// removed, then the rows older than the window dropped but the one in
/// force at its start. A first night's rows are written beside the offers. On the bench's second night: 2.4 s for 5.1 M rows,
/// where one index seek per offer took 7.4 s (docs/PERFORMANCE.md).
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
                // same table definition, no WHERE); then tonight's changes, which the load found
                // by merging each fresh pharmacy's offers with yesterday's (`PriceHistoryDelta`):
                // the rows of pharmacies no longer held and of items no longer sold go, a row
                // comes for each new or changed price.
                try database.execute("INSERT INTO main.price_history SELECT * FROM old.price_history")
                try database.execute("""
                    DELETE FROM main.price_history WHERE pharmacy_id IN (SELECT id FROM old.pharmacies EXCEPT SELECT id FROM main.pharmacies);
                    DELETE FROM main.price_history WHERE (pharmacy_id, aptcode) IN (SELECT pharmacy_id, aptcode FROM temp.history_gone);
                    INSERT INTO main.price_history(pharmacy_id, aptcode, since, price_cents)
                    SELECT pharmacy_id, aptcode, since, price_cents FROM temp.history_new ORDER BY pharmacy_id, aptcode;
                    """)
                // The two temporary tables stay until the writer's connection closes (it removes
                // SQLite's temporary file): dropping them fails while a cached statement on them lives.
            } else if previous != nil {
                // A `current` from before schema 4: its offers are each one's first known price,
                // since its pharmacy's export; then a row where a pharmacy loaded tonight has
                // another price (a carried pharmacy's offers are yesterday's).
                try database.execute("""
                    INSERT INTO price_history(pharmacy_id, aptcode, since, price_cents)
                    SELECT o.pharmacy_id, o.aptcode, p.last_refresh, o.price_cents
                    FROM old.offers AS o JOIN old.pharmacies AS p ON p.id = o.pharmacy_id
                    WHERE EXISTS (SELECT 1 FROM main.offers AS n WHERE n.pharmacy_id = o.pharmacy_id AND n.aptcode = o.aptcode)
                    """)
                try database.prepare("""
                    INSERT OR IGNORE INTO price_history(pharmacy_id, aptcode, since, price_cents)
                    SELECT o.pharmacy_id, o.aptcode, p.last_refresh, o.price_cents
                    FROM pharmacies AS p JOIN offers AS o ON o.pharmacy_id = p.id
                    WHERE p.loaded_at = ?1 AND o.price_cents IS NOT (SELECT h.price_cents FROM price_history AS h
                        WHERE h.pharmacy_id = o.pharmacy_id AND h.aptcode = o.aptcode ORDER BY h.since DESC LIMIT 1)
                    """).run(tonight)
            } else {
                // A first night: every offer's one row, written beside it by the load (`StockLoader`,
                // `SnapshotWriter.writeOffers(historySince:)`). One row per offer leaves the window
                // nothing to drop. Offers without rows (a writer that was not told) get theirs here.
                if try database.scalarInt("SELECT EXISTS (SELECT 1 FROM price_history)") == 0 {
                    try database.execute("""
                        INSERT INTO price_history(pharmacy_id, aptcode, since, price_cents)
                        SELECT o.pharmacy_id, o.aptcode, p.last_refresh, o.price_cents FROM offers AS o JOIN pharmacies AS p ON p.id = o.pharmacy_id
                        """)
                }
                try database.execute("COMMIT")
                return
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
