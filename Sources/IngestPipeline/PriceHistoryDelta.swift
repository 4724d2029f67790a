import IngestCore
import IngestSnapshot

/// What tonight changes in `price_history`, found while the offers are
/// written: each pharmacy loaded tonight has its offers merged, in key
/// order, with its offers in `current` (read in the same order), so a
/// changed or new price and an item no longer sold are seen without a
/// lookup per offer. The rows go to two temporary tables on the writer's
/// connection (SQLite's temporary file, never the snapshot): memory stays
/// flat whatever a feed's size. `PriceHistory` applies them after copying
/// yesterday's rows.
///
/// Only for a `current` that has the table: its latest row of every offer
/// is that offer's price (each night makes it so), which is what the merge
/// compares with.
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
        private let since: String
        private let yesterday: SQLiteStatement
        private var current: (aptcode: String, cents: Int64)?

        fileprivate init(_ delta: PriceHistoryDelta, pharmacyID: String, since: String) throws {
            self.delta = delta
            self.pharmacyID = pharmacyID
            self.since = since
            yesterday = try delta.previous.database.prepare("SELECT aptcode, price_cents FROM offers WHERE pharmacy_id = ? ORDER BY aptcode")
            try yesterday.bind(pharmacyID, at: 1)
            try advance()
        }

        private func advance() throws {
            current = try yesterday.step() ? (yesterday.string(0) ?? "", yesterday.int64(1)) : nil
        }

        /// Tonight's offer: a row where yesterday had none or another price.
        func offer(_ aptcode: String, _ cents: Int64) throws {
            while let old = current, precedesInByteOrder(old.aptcode, aptcode) {
                try delta.gone(pharmacyID, old.aptcode)
                try advance()
            }
            if let old = current, old.aptcode == aptcode {
                if old.cents != cents { try delta.added(pharmacyID, aptcode, since, cents) }
                try advance()
            } else {
                try delta.added(pharmacyID, aptcode, since, cents)
            }
        }

        /// Yesterday's offers past tonight's last are items no longer sold.
        func finish() throws {
            while let old = current {
                try delta.gone(pharmacyID, old.aptcode)
                try advance()
            }
        }
    }

    func merge(_ pharmacyID: String, since: String) throws -> Merge {
        try Merge(self, pharmacyID: pharmacyID, since: since)
    }

    /// A pharmacy whose offers gave way after all (a duplicate evicted): its changes are not tonight's.
    func discard(_ pharmacyID: String) throws {
        try database.cachedStatement("DELETE FROM temp.history_new WHERE pharmacy_id = ?").run(.text(pharmacyID))
        try database.cachedStatement("DELETE FROM temp.history_gone WHERE pharmacy_id = ?").run(.text(pharmacyID))
    }

    fileprivate func added(_ pharmacyID: String, _ aptcode: String, _ since: String, _ cents: Int64) throws {
        try database.cachedStatement("INSERT INTO temp.history_new(pharmacy_id, aptcode, since, price_cents) VALUES (?, ?, ?, ?)")
            .run(.text(pharmacyID), .text(aptcode), .text(since), .int(cents))
    }

    fileprivate func gone(_ pharmacyID: String, _ aptcode: String) throws {
        try database.cachedStatement("INSERT OR IGNORE INTO temp.history_gone(pharmacy_id, aptcode) VALUES (?, ?)")
            .run(.text(pharmacyID), .text(aptcode))
    }
}
