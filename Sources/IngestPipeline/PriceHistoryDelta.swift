import IngestCore
import IngestSnapshot

/// What tonight changes in prices, found while the offers are written: each
/// pharmacy loaded tonight has its offers merged, in key order, with its
/// offers in `current` (read in the same order), so a kept price keeps its
/// `price_since`, a changed one starts tonight and leaves its old price to
/// `price_history`, and an item no longer sold is seen, all without a
/// lookup per offer. The rows go to two temporary tables on the writer's
/// connection (SQLite's temporary file, never the snapshot): memory stays
/// flat whatever a feed's size. `PriceHistory` applies them after copying
/// yesterday's rows.
///
/// Yesterday's since comes from what `current`'s schema has
/// (`PreviousSnapshot.PriceSinceSource`): a schema-4 file's newest history
/// row is the upgrade SNAPSHOT.md describes.
final class PriceHistoryDelta {
    private let database: SQLiteDatabase
    private let previous: PreviousSnapshot

    init(writer: SnapshotWriter, previous: PreviousSnapshot) throws {
        database = writer.database
        self.previous = previous
        try database.execute("""
            CREATE TEMP TABLE IF NOT EXISTS history_new(pharmacy_id TEXT, aptcode TEXT, since TEXT, price_cents INTEGER);
            CREATE TEMP TABLE IF NOT EXISTS history_gone(pharmacy_id TEXT, aptcode TEXT, PRIMARY KEY (pharmacy_id, aptcode)) WITHOUT ROWID;
            """)
    }

    /// One pharmacy's merge: hand it tonight's offers in key order, then `finish()`.
    final class Merge {
        private let delta: PriceHistoryDelta
        private let pharmacyID: String
        private let tonight: String
        private let yesterday: SQLiteStatement
        private var sinces = RepeatedText()
        /// Yesterday's offer under the cursor, as SQLite's bytes (valid until
        /// the statement steps): nearly every offer of a night is yesterday's
        /// too, and a `String` for each of 5 million aptcodes, compared as
        /// strings, was a tenth of the writer thread's work on a second night.
        private var current: (aptcode: UnsafeRawBufferPointer, cents: Int64, since: UnsafeRawBufferPointer)?

        fileprivate init(_ delta: PriceHistoryDelta, pharmacyID: String, tonight: String) throws {
            self.delta = delta
            self.pharmacyID = pharmacyID
            self.tonight = tonight
            yesterday = try delta.previous.offersWithSince(of: pharmacyID)
            try advance()
        }

        private func advance() throws {
            current = try yesterday.step() ? (yesterday.textBytes(0), yesterday.int64(1), yesterday.textBytes(2)) : nil
        }

        /// Tonight's offer; returns its `price_since`: yesterday's for the
        /// same price, tonight's export time for a new offer or a new price
        /// (whose predecessor goes to the history).
        func offer(_ aptcode: String, _ cents: Int64) throws -> String {
            var aptcode = aptcode
            return try aptcode.withUTF8 { tonightsCode in
                let code = UnsafeRawBufferPointer(tonightsCode)
                var order = 1
                while let old = current {
                    order = byteOrder(old.aptcode, code)
                    guard order < 0 else { break }
                    try delta.gone(pharmacyID, String(decoding: old.aptcode, as: UTF8.self))
                    try advance()
                }
                guard let old = current, order == 0 else { return tonight }
                let since = sinces.string(old.since) ?? ""
                try advance()
                if old.cents == cents { return since }
                try delta.replaced(pharmacyID, String(decoding: code, as: UTF8.self), since, old.cents)
                return tonight
            }
        }

        /// Yesterday's offers past tonight's last are items no longer sold.
        func finish() throws {
            while let old = current {
                try delta.gone(pharmacyID, String(decoding: old.aptcode, as: UTF8.self))
                try advance()
            }
        }
    }

    /// `tonight`: the export time of the feed being loaded.
    func merge(_ pharmacyID: String, tonight: String) throws -> Merge {
        try Merge(self, pharmacyID: pharmacyID, tonight: tonight)
    }

    /// A pharmacy whose offers gave way after all (a duplicate evicted): its changes are not tonight's.
    func discard(_ pharmacyID: String) throws {
        try database.cachedStatement("DELETE FROM temp.history_new WHERE pharmacy_id = ?").run(.text(pharmacyID))
        try database.cachedStatement("DELETE FROM temp.history_gone WHERE pharmacy_id = ?").run(.text(pharmacyID))
    }

    /// A price replaced tonight: its row for the history, with the since it had.
    fileprivate func replaced(_ pharmacyID: String, _ aptcode: String, _ since: String, _ cents: Int64) throws {
        try database.cachedStatement("INSERT INTO temp.history_new(pharmacy_id, aptcode, since, price_cents) VALUES (?, ?, ?, ?)")
            .run(.text(pharmacyID), .text(aptcode), .text(since), .int(cents))
    }

    fileprivate func gone(_ pharmacyID: String, _ aptcode: String) throws {
        try database.cachedStatement("INSERT OR IGNORE INTO temp.history_gone(pharmacy_id, aptcode) VALUES (?, ?)")
            .run(.text(pharmacyID), .text(aptcode))
    }
}
