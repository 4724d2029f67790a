/// `PRAGMA integrity_check` on a snapshot, with a page cache sized for it.
///
/// Most of the check's time goes to one lookup in `offers_by_item` for every
/// offer. It reads offers in key order (pharmacy, then item), so it sweeps
/// the whole index once per pharmacy. The index keeps the entries of one
/// item in pharmacy order, so the next pharmacy's sweep touches nearly the
/// same leaf pages, about one per item. A cache that holds one sweep turns
/// the lookups into cache hits: 7.2 s instead of 10 s for 5 million offers
/// on the bench machine. A cache smaller than one sweep thrashes and is
/// slower than SQLite's default, so the default stays when a sweep would
/// not fit the memory budget.
public enum SnapshotIntegrityCheck {
    /// The most memory the check's cache may take.
    public static let cacheBudgetBytes: Int64 = 96 << 20

    /// SQLite's findings, or nil when the snapshot is sound.
    public static func problems(in database: SQLiteDatabase) throws(SQLiteError) -> String? {
        if let pages = cachePages(items: (try? database.scalarInt("SELECT count(*) FROM items")) ?? nil,
                                  pageSize: (try? database.scalarInt("PRAGMA page_size")) ?? nil) {
            try database.execute("PRAGMA cache_size = \(pages)")
        }
        return try database.integrityProblems()
    }

    /// Pages for one sweep (half as many again for interior pages and the
    /// small tables), or nil to keep the default cache.
    static func cachePages(items: Int64?, pageSize: Int64?) -> Int64? {
        guard let items, let pageSize, items > 0, pageSize > 0 else { return nil }
        let pages = items + items / 2 + 1024
        return pages * pageSize <= cacheBudgetBytes ? pages : nil
    }
}
