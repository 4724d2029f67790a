import Foundation
import IngestSnapshot

/// The night's changeset from `current` to the snapshot it built, and the
/// report's diff, from one merge of the two files (`SnapshotMerge`): each
/// table read once in key order from both, each changed row written to the
/// changeset as it is found and counted for the report. `ingest-serve`
/// then serves the file as it is, and a client further behind gets the
/// nightly changesets combined (`ChangesetChain`); nobody diffs the two
/// files again.
///
/// Made after the snapshot is complete rather than while the offers are
/// written: the load's own stream is not yet final there (offers priced
/// after a later feed gave their package code, a pharmacy evicted as a
/// copy, carried offers' tiers recomputed, the history pruned), and the
/// changeset must turn yesterday's file into exactly tonight's.
enum NightChangeset {
    struct Made {
        /// The version it applies to.
        var from: String
        var path: String
        var written: ChangesetWriter.Written
    }

    /// The diff for the report and, when `previous` has the same schema as
    /// tonight's file, the changeset at `path`. Across schemas there is none
    /// (SNAPSHOT.md: clients take the whole file) and the diff is made alone.
    ///
    /// `offers` is nearly all of the merge's time (8.5 of 8.7 s on the
    /// bench's second night, on one thread while the other core idled):
    /// its pharmacies above the middle one are merged at once on a second
    /// thread, into a part appended after this thread's lower half, so the
    /// file is byte for byte the one merge's.
    static func make(previous: PreviousSnapshot, staging: String, path: String, sample: Int = 10) throws -> (diff: SnapshotDiff, changeset: Made?) {
        let database = try open(staging, comparedWith: previous.path) // closed when it goes, also on an error
        let sameSchema = try database.scalarInt("PRAGMA old.user_version") == database.scalarInt("PRAGMA main.user_version")
            && SnapshotTableList.difference(old: try SnapshotTableList.tables(in: database, schema: "old"),
                                            new: try SnapshotTableList.tables(in: database)) == nil
        guard sameSchema else {
            var tally = SnapshotDiff.OfferTally(sample: sample)
            (tally.added, tally.removed) = try SnapshotDiff.forEachChange(in: database) { tally.count($0, limitChanged: $1) }
            return (try SnapshotDiff.compute(in: database, from: previous.version, to: "this run", offers: tally), nil)
        }
        let writer = try ChangesetWriter(path: path)
        var upper: UpperOffers?
        do {
            let tables = try SnapshotChangeset.changedTables(in: database)
            let observer = try OfferObserver(database, sample: sample)
            if tables.contains("offers"), let middle = try middlePharmacy(in: database) {
                upper = try UpperOffers(staging: staging, previous: previous.path, from: middle,
                                        partDirectory: (path as NSString).deletingLastPathComponent, sample: sample)
            }
            for table in tables {
                guard table == "offers", let upper else {
                    try SnapshotMerge.writeTable(table, in: database, to: writer, observe: observer.observe)
                    continue
                }
                try SnapshotMerge.writeTable(table, range: .below(upper.boundary), in: database, to: writer, observe: observer.observe)
                let half = try upper.wait()
                try writer.append(half.part)
                observer.tally.absorb(half.tally)
            }
            let written = try writer.finish()
            return (try SnapshotDiff.compute(in: database, from: previous.version, to: "this run", offers: observer.tally),
                    Made(from: previous.version, path: path, written: written))
        } catch {
            // The other thread's connections close before the night goes on to remove files.
            _ = try? upper?.wait() // its own failure, if any, is not the one to report
            unlink(path) // half a changeset is no changeset; the run's error is the one to report
            throw error
        }
    }

    /// Tonight's staging file with `current` attached as `old`, read-only.
    private static func open(_ staging: String, comparedWith previous: String) throws -> SQLiteDatabase {
        let database = try SQLiteDatabase(path: staging, readOnly: true)
        try database.execute("ATTACH DATABASE '\(PriceHistory.readOnlyURI(previous).replacingOccurrences(of: "'", with: "''"))' AS old")
        return database
    }

    /// The pharmacy in the middle of tonight's, by id: the upper half of
    /// `offers` starts there. Pharmacies hold similar numbers of offers
    /// (the bench's halves: 8.5 s of merge split about evenly). Nil with
    /// fewer than two pharmacies.
    static func middlePharmacy(in database: SQLiteDatabase) throws -> String? {
        try database.strings("""
            SELECT id FROM main.pharmacies WHERE (SELECT count(*) FROM main.pharmacies) >= 2
            ORDER BY id LIMIT 1 OFFSET (SELECT count(*) / 2 FROM main.pharmacies)
            """).first
    }

    /// The report's counts of the offers a merge found changed, with the
    /// largest price changes named (one per connection: the names come from
    /// tonight's file).
    final class OfferObserver {
        var tally: SnapshotDiff.OfferTally
        private let names: SQLiteStatement
        private var columns: (pharmacy: Int32, aptcode: Int32, price: Int32, limit: Int32)?

        init(_ database: SQLiteDatabase, sample: Int) throws {
            tally = SnapshotDiff.OfferTally(sample: sample)
            names = try database.prepare("SELECT (SELECT name FROM main.items WHERE aptcode = ?1), (SELECT name FROM main.pharmacies WHERE id = ?2)")
        }

        func observe(_ layout: SnapshotMerge.Layout, _ change: SnapshotMerge.Change, _ old: SnapshotMerge.Row?, _ new: SnapshotMerge.Row?) throws {
            guard layout.table == "offers" else { return }
            switch change {
            case .inserted: tally.added += 1
            case .deleted: tally.removed += 1
            case .updated:
                guard let old, let new else { return }
                if columns == nil {
                    columns = (layout.index(of: "pharmacy_id") ?? 0, layout.index(of: "aptcode") ?? 1,
                               layout.index(of: "price_cents") ?? 2, layout.index(of: "limit_price_cents") ?? 5)
                }
                guard let at = columns else { return }
                // SQL's `IS NOT`: NULL against NULL is no change.
                let limitChanged = old.isNull(at.limit) != new.isNull(at.limit) || (!old.isNull(at.limit) && old.int64(at.limit) != new.int64(at.limit))
                guard old.int64(at.price) != new.int64(at.price) || limitChanged else { return }
                let (pharmacyID, aptcode) = (new.string(at.pharmacy) ?? "", new.string(at.aptcode) ?? "")
                names.reset()
                try names.bind(aptcode, at: 1)
                try names.bind(pharmacyID, at: 2)
                let named = try names.step()
                tally.count(SnapshotDiff.PriceChange(pharmacyID: pharmacyID, aptcode: aptcode, oldCents: old.int64(at.price), newCents: new.int64(at.price),
                                                     itemName: named ? names.string(0) : nil, pharmacyName: named ? names.string(1) : nil),
                            limitChanged: limitChanged)
            }
        }
    }

    /// The offers of pharmacies from `boundary` on, merged on a thread of
    /// their own with their own connection, into a changeset part.
    ///
    /// `@unchecked Sendable`: the thread sets `outcome` once and then
    /// signals `done`; `wait()` reads it only after that signal, which
    /// orders the two. The part and the tally are never touched by both.
    final class UpperOffers: @unchecked Sendable {
        struct Half {
            var part: ChangesetWriter
            var tally: SnapshotDiff.OfferTally
        }

        let boundary: String
        private var outcome: Result<Half, any Error>?
        private let done = DispatchSemaphore(value: 0)
        private var waited = false

        init(staging: String, previous: String, from boundary: String, partDirectory: String, sample: Int) throws {
            self.boundary = boundary
            let thread = Thread { [self] in
                outcome = Result {
                    let database = try NightChangeset.open(staging, comparedWith: previous)
                    let part = try ChangesetWriter(partIn: partDirectory)
                    // The observer's statement goes before the connection closes.
                    let tally = try { () throws -> SnapshotDiff.OfferTally in
                        let observer = try OfferObserver(database, sample: sample)
                        try SnapshotMerge.writeTable("offers", range: .from(boundary), in: database, to: part, observe: observer.observe)
                        return observer.tally
                    }()
                    try database.close()
                    return Half(part: part, tally: tally)
                }
                done.signal()
            }
            thread.start()
        }

        /// The half once merged (waits for the thread); its error if it failed.
        func wait() throws -> Half {
            if !waited {
                done.wait()
                waited = true
            }
            return try outcome!.get()
        }
    }
}
