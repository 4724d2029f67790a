import IngestCore

/// Items the run's catalog could not keep in memory: a temporary table on
/// the writer's connection (in SQLite's temporary file, never in the
/// snapshot), merged with the same rule as the catalog's (tonight's first
/// mention gives the fields, later ones only fill what it left empty; a row
/// from a feed replaces yesterday's row of a carried pharmacy). Rows carried
/// from yesterday bring their leaflet and image URLs, kept here too.
///
/// Only a feed of hundreds of thousands of distinct items gets here; the
/// national night's ten thousand items never do.
public final class ItemOverflow {
    private let database: SQLiteDatabase

    public init(writer: SnapshotWriter) throws(SQLiteError) {
        database = writer.database
        try database.execute("""
            CREATE TEMP TABLE IF NOT EXISTS item_overflow(
                aptcode TEXT PRIMARY KEY, package_code TEXT, gtin TEXT, name TEXT NOT NULL,
                producer TEXT, atc TEXT, active_substance TEXT, info_url TEXT, image_url TEXT,
                tonight INTEGER NOT NULL) WITHOUT ROWID
            """)
    }

    /// Rows the catalog held after those already here: they fill what the
    /// stored rows lack, or replace a stored row of yesterday's when they
    /// come from tonight's feeds (`tonight`, one flag a row).
    public func store(_ rows: [ItemRow], tonight: [Bool]) throws(SQLiteError) {
        let upsert = try database.cachedStatement("""
            INSERT INTO temp.item_overflow(aptcode, package_code, gtin, name, producer, atc, active_substance, info_url, image_url, tonight)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(aptcode) DO UPDATE SET
                package_code = iif(excluded.tonight > tonight, excluded.package_code, coalesce(package_code, excluded.package_code)),
                gtin = iif(excluded.tonight > tonight, excluded.gtin, coalesce(gtin, excluded.gtin)),
                name = iif(excluded.tonight > tonight, excluded.name, name),
                producer = iif(excluded.tonight > tonight, excluded.producer, coalesce(producer, excluded.producer)),
                atc = iif(excluded.tonight > tonight, excluded.atc, coalesce(atc, excluded.atc)),
                active_substance = iif(excluded.tonight > tonight, excluded.active_substance, coalesce(active_substance, excluded.active_substance)),
                info_url = coalesce(info_url, excluded.info_url), image_url = coalesce(image_url, excluded.image_url),
                tonight = max(tonight, excluded.tonight)
            """)
        for (row, fromTonight) in zip(rows, tonight) {
            try upsert.run(.text(row.aptcode), .text(row.packageCode), .text(row.gtin), .text(row.name), .text(row.producer),
                           .text(row.atc), .text(row.activeSubstance), .text(row.infoURL), .text(row.imageURL), .int(fromTonight ? 1 : 0))
        }
    }

    /// A stored row and whether it came from tonight's feeds.
    public func row(_ aptcode: String) throws(SQLiteError) -> (row: ItemRow, tonight: Bool)? {
        let select = try database.cachedStatement(
            "SELECT aptcode, package_code, gtin, name, producer, atc, active_substance, info_url, image_url, tonight FROM temp.item_overflow WHERE aptcode = ?")
        select.reset()
        try select.bind(aptcode, at: 1)
        defer { select.reset() }
        return try select.step() ? (Self.row(select), select.int64(9) != 0) : nil
    }

    /// Every stored row in aptcode byte order (BINARY collation), with whether it came from tonight's feeds.
    public func forEachSorted(_ body: (ItemRow, Bool) throws -> Void) throws {
        let select = try database.prepare(
            "SELECT aptcode, package_code, gtin, name, producer, atc, active_substance, info_url, image_url, tonight FROM temp.item_overflow ORDER BY aptcode")
        while try select.step() { try body(Self.row(select), select.int64(9) != 0) }
    }

    private static func row(_ statement: SQLiteStatement) -> ItemRow {
        ItemRow(aptcode: statement.string(0) ?? "", packageCode: statement.string(1), gtin: statement.string(2),
                name: statement.string(3) ?? "", producer: statement.string(4), atc: statement.string(5),
                activeSubstance: statement.string(6), infoURL: statement.string(7), imageURL: statement.string(8))
    }
}
