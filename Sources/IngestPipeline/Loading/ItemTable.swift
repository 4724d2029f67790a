import IngestCore
import IngestSnapshot

/// The night's items table, written once after the last pharmacy: every
/// item of the catalogue in key order, with what the medicine register and
/// GS1 add (and a warning where they disagree with the feeds).
struct ItemTable {
    let enrichment: ItemEnrichment
    /// Items handed to the writer at a time.
    let batchRows: Int

    func write(_ items: inout ItemCatalog, warnings: inout Journal<Warning>, write: ([ItemRow]) throws -> Void) throws {
        var batch: [ItemRow] = []
        try items.forEachSorted { item in
            var item = item
            var found: [Warning] = []
            enrichment.enrich(&item, warnings: &found)
            try warnings += found
            batch.append(item)
            if batch.count == batchRows {
                try write(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        try write(batch)
    }
}
