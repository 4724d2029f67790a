import Foundation
import IngestAdapters
import IngestCore
import IngestSnapshot

/// The `loaded_exports` ledger (FEEDS.md §12.1): the bytes (SHA-256) of
/// every stock export each pharmacy's data came from, with its export time
/// and the run that loaded it. A file with no date of its own takes its
/// modification time or the run's, so its time says nothing of whether it
/// is new; the ledger does: the same bytes are never loaded twice, however
/// their time or name changes. Carried from night to night and pruned with
/// `--history-days`, as the price history is.
enum LoadedExports {
    /// One export loaded tonight.
    struct Entry {
        var pharmacyID: String
        var sha256: String
        var exportTime: String
    }

    static let table = SnapshotTable(name: "loaded_exports", create: """
        CREATE TABLE loaded_exports(
            pharmacy_id TEXT NOT NULL, sha256 TEXT NOT NULL, export_time TEXT NOT NULL, loaded_at TEXT NOT NULL,
            PRIMARY KEY (pharmacy_id, sha256)
        ) WITHOUT ROWID
        """, analysed: false,
        about: TableAbout("Loaded exports", "The stock exports each pharmacy's data came from, by their bytes: a file already loaded is never loaded again, whatever its time or name says; kept for --history-days.", columns: [
            ("pharmacy_id", "Pharmacy"), ("sha256", "SHA-256 of the export's bytes"), ("export_time", "Its export time (ISO 8601)"),
            ("loaded_at", "Time of the run that loaded it (ISO 8601)"),
        ], sort: "loaded_at"))

    /// The exports tonight's report loaded: stock feeds (and chain parts) with a pharmacy and a digest.
    static func loaded(in report: RunReport) -> [Entry] {
        report.feeds.compactMap { feed in
            guard feed.kind == FeedKind.stock.rawValue, feed.outcome == .loaded, let id = feed.pharmacyID, !feed.sha256.isEmpty,
                  let time = feed.exportedAt else { return nil }
            return Entry(pharmacyID: id, sha256: feed.sha256, exportTime: time)
        }
    }

    /// Fills the ledger of the snapshot at `writer` (after `finish()`,
    /// outside any transaction): yesterday's rows, or for a `current` from
    /// before the ledger the export each of its pharmacies holds (by its
    /// manifest); tonight's; then the rows loaded before the window go.
    static func write(to writer: SnapshotWriter, previous: PreviousSnapshot?, tonight: [Entry], asOf: ExportTimestamp, keepDays: Int) throws {
        let database = writer.database
        try database.inTransaction {
            let insert = try database.prepare("INSERT OR REPLACE INTO loaded_exports(pharmacy_id, sha256, export_time, loaded_at) VALUES (?1, ?2, ?3, ?4)")
            if let previous {
                for row in try previous.loadedExports() {
                    try insert.run(.text(row.pharmacyID), .text(row.sha256), .text(row.exportTime), .text(row.loadedAt))
                }
            }
            for entry in tonight {
                try insert.run(.text(entry.pharmacyID), .text(entry.sha256), .text(entry.exportTime), .text(asOf.iso8601))
            }
            let cutoff = ExportTimestamp.tallinnTime(Date(timeIntervalSince1970: TimeInterval(asOf.epochSeconds - Int64(keepDays) * 86_400)))
            try database.prepare("DELETE FROM loaded_exports WHERE loaded_at < ?1").run(.text(cutoff.iso8601))
        }
    }
}

extension PreviousSnapshot {
    struct LoadedExport {
        var pharmacyID: String
        var sha256: String
        var exportTime: String
        var loadedAt: String
    }

    /// `current`'s ledger; from a `current` without one, the export each
    /// pharmacy holds, as its manifest names it.
    func loadedExports() throws -> [LoadedExport] {
        if try hasTable("loaded_exports") {
            let statement = try database.prepare("SELECT pharmacy_id, sha256, export_time, loaded_at FROM loaded_exports")
            var rows: [LoadedExport] = []
            while try statement.step() {
                rows.append(LoadedExport(pharmacyID: statement.string(0) ?? "", sha256: statement.string(1) ?? "",
                                         exportTime: statement.string(2) ?? "", loadedAt: statement.string(3) ?? ""))
            }
            return rows
        }
        var rows: [LoadedExport] = []
        for input in manifest?.inputs ?? [] where input.kind == FeedKind.stock.rawValue && input.outcome == FeedOutcome.loaded.rawValue {
            guard let id = input.pharmacyId, !input.sha256.isEmpty, let row = pharmacies[id] else { continue }
            rows.append(LoadedExport(pharmacyID: id, sha256: input.sha256, exportTime: row.lastRefresh, loadedAt: row.loadedAt ?? row.lastRefresh))
        }
        return rows
    }
}
