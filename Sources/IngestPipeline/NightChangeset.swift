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
    static func make(previous: PreviousSnapshot, staging: String, path: String, sample: Int = 10) throws -> (diff: SnapshotDiff, changeset: Made?) {
        let database = try SQLiteDatabase(path: staging, readOnly: true) // closed when it goes, also on an error
        try database.execute("ATTACH DATABASE '\(PriceHistory.readOnlyURI(previous.path).replacingOccurrences(of: "'", with: "''"))' AS old")
        let sameSchema = try database.scalarInt("PRAGMA old.user_version") == database.scalarInt("PRAGMA main.user_version")
            && SnapshotTableList.difference(old: try SnapshotTableList.tables(in: database, schema: "old"),
                                            new: try SnapshotTableList.tables(in: database)) == nil
        var tally = SnapshotDiff.OfferTally(sample: sample)
        guard sameSchema else {
            (tally.added, tally.removed) = try SnapshotDiff.forEachChange(in: database) { tally.count($0, limitChanged: $1) }
            return (try SnapshotDiff.compute(in: database, from: previous.version, to: "this run", offers: tally), nil)
        }
        let writer = try ChangesetWriter(path: path)
        let names = try database.prepare("SELECT (SELECT name FROM main.items WHERE aptcode = ?1), (SELECT name FROM main.pharmacies WHERE id = ?2)")
        var columns: (pharmacy: Int32, aptcode: Int32, price: Int32, limit: Int32)?
        do {
            try SnapshotMerge.writeChangeset(in: database, tables: try SnapshotChangeset.changedTables(in: database), to: writer) { layout, change, old, new in
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
            let written = try writer.finish()
            return (try SnapshotDiff.compute(in: database, from: previous.version, to: "this run", offers: tally),
                    Made(from: previous.version, path: path, written: written))
        } catch {
            unlink(path) // half a changeset is no changeset; the run's error is the one to report
            throw error
        }
    }
}
