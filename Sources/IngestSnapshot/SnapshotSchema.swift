/// The snapshot's tables, as SNAPSHOT.md fixes them for the read services,
/// plus the indexes their five queries need: the core tables here, each
/// reference kind's from the kind. Changing a required table or column is a
/// `version` bump.
public struct SnapshotSchema: Sendable {
    /// 2: `gs1_children` and `reimbursement_diagnoses` gained a `position` and a primary key, so that changesets carry them.
    public static let version = 2
    /// `PRAGMA application_id` of every snapshot ("INGS"): a file tells what
    /// it is (`file(1)` and readers check it), beside `user_version` = `version`.
    public static let applicationID: Int32 = 0x494E_4753

    /// In creation order: the core tables, the given ones, the search index last.
    public let tables: [SnapshotTable]

    public init(adding tables: [SnapshotTable]) {
        self.tables = Self.core + tables + [Self.itemsSearch]
    }

    var createSQL: String { tables.map { $0.create + ";" }.joined(separator: "\n") }
    var indexSQL: String { tables.flatMap(\.indexes).map { $0 + ";" }.joined(separator: "\n") }
    public var analysedTables: [String] { tables.filter(\.analysed).map(\.name) }
    public var countedTables: [String] { tables.filter(\.counted).map(\.name) }

    /// `WITHOUT ROWID` where the primary key is the access path, so rows
    /// live in key order in one B-tree. Relations are declared as foreign
    /// keys for generic clients (Datasette, sqlite-utils) to show and follow;
    /// the build does not enforce them row by row (SNAPSHOT.md), and a test
    /// runs `PRAGMA foreign_key_check` over a generated snapshot.
    ///
    /// `offers_by_item` keeps an item's offers in pharmacy order, the order
    /// the integrity check looks them up in (`SnapshotIntegrityCheck`); the
    /// price rides along so an item's offers and prices come from the index
    /// alone, and the few hundred of them sort by price in microseconds.
    public static let core: [SnapshotTable] = [
        SnapshotTable(name: "meta", create: "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID", counted: false),
        SnapshotTable(name: "pharmacies", create: """
            CREATE TABLE pharmacies(
                id TEXT PRIMARY KEY, name TEXT, chain_id TEXT, region TEXT, address TEXT,
                phone TEXT, open_hours TEXT, latitude REAL, longitude REAL,
                last_refresh TEXT, item_count INTEGER, stale INTEGER NOT NULL DEFAULT 0, loaded_at TEXT
            ) WITHOUT ROWID
            """, indexes: ["CREATE INDEX pharmacies_by_position ON pharmacies(latitude, longitude)"]),
        SnapshotTable(name: "items", create: """
            CREATE TABLE items(
                aptcode TEXT PRIMARY KEY, package_code TEXT, gtin TEXT, name TEXT, producer TEXT,
                atc TEXT, active_substance TEXT, info_url TEXT, image_url TEXT
            ) WITHOUT ROWID
            """, indexes: ["CREATE INDEX items_by_gtin ON items(gtin)", "CREATE INDEX IF NOT EXISTS items_by_atc ON items(atc)"]),
        SnapshotTable(name: "offers", create: """
            CREATE TABLE offers(
                pharmacy_id TEXT NOT NULL REFERENCES pharmacies(id), aptcode TEXT NOT NULL REFERENCES items(aptcode),
                price_cents INTEGER NOT NULL,
                quantity INTEGER, limit_price_cents INTEGER, price_50_cents INTEGER,
                price_75_cents INTEGER, price_90_cents INTEGER, price_100_cents INTEGER,
                PRIMARY KEY (pharmacy_id, aptcode)
            ) WITHOUT ROWID
            """, indexes: ["CREATE INDEX offers_by_item ON offers(aptcode, pharmacy_id, price_cents)"], analysed: false),
    ]

    static let itemsSearch = SnapshotTable(name: "items_search", create: """
        CREATE VIRTUAL TABLE items_search USING fts5(
            aptcode UNINDEXED, name, producer, active_substance,
            tokenize = 'unicode61 remove_diacritics 0'
        )
        """, analysed: false, counted: false)
}
