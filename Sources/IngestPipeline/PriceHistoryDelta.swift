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
        private var current: (aptcode: String, cents: Int64, since: String)?

        fileprivate init(_ delta: PriceHistoryDelta, pharmacyID: String, tonight: String) throws {
            self.delta = delta
            self.pharmacyID = pharmacyID
            self.tonight = tonight
            yesterday = try delta.previous.offersWithSince(of: pharmacyID)
            try advance()
        }

        private func advance() throws {
            current = try yesterday.step() ? (yesterday.string(0) ?? "", yesterday.int64(1), sinces.string(yesterday.textBytes(2)) ?? "") : nil
        }

        /// Tonight's offer; returns its `price_since`: yesterday's for the
        /// same price, tonight's export time for a new offer or a new price
        /// (whose predecessor goes to the history).
        func offer(_ aptcode: String, _ cents: Int64) throws -> String {
            while let old = current, precedesInByteOrder(old.aptcode, aptcode) {
                try delta.gone(pharmacyID, old.aptcode)
                try advance()
            }
            guard let old = current, old.aptcode == aptcode else { return tonight }
            try advance()
            if old.cents == cents { return old.since }
            try delta.replaced(pharmacyID, aptcode, old.since, old.cents)
            return tonight
        }

        /// Yesterday's offers past tonight's last are items no longer sold.
        func finish() throws {
            while let old = current {
                try delta.gone(pharmacyID, old.aptcode)
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
