/// The snapshot's tables, as SNAPSHOT.md fixes them for the read services,
/// plus the indexes their five queries need. Changing a required table or
/// column is a `version` bump.
public enum SnapshotSchema {
    public static let version = 1

    /// Tables are created before the load; `WITHOUT ROWID` where the primary
    /// key is the access path, so rows live in key order in one B-tree.
    public static let tables = """
    CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
    CREATE TABLE pharmacies(
        id TEXT PRIMARY KEY, name TEXT, chain_id TEXT, region TEXT, address TEXT,
        phone TEXT, open_hours TEXT, latitude REAL, longitude REAL,
        last_refresh TEXT, item_count INTEGER, stale INTEGER NOT NULL DEFAULT 0, loaded_at TEXT
    ) WITHOUT ROWID;
    CREATE TABLE items(
        aptcode TEXT PRIMARY KEY, package_code TEXT, gtin TEXT, name TEXT, producer TEXT,
        atc TEXT, active_substance TEXT, info_url TEXT, image_url TEXT
    ) WITHOUT ROWID;
    CREATE TABLE offers(
        pharmacy_id TEXT NOT NULL, aptcode TEXT NOT NULL, price_cents INTEGER NOT NULL,
        quantity INTEGER, limit_price_cents INTEGER, price_50_cents INTEGER,
        price_75_cents INTEGER, price_90_cents INTEGER, price_100_cents INTEGER,
        PRIMARY KEY (pharmacy_id, aptcode)
    ) WITHOUT ROWID;
    CREATE TABLE reimbursements(
        package_code TEXT NOT NULL, rate INTEGER NOT NULL, limit_price_cents INTEGER,
        diagnoses TEXT, info TEXT, PRIMARY KEY (package_code, rate)
    ) WITHOUT ROWID;
    CREATE TABLE reimbursement_diagnoses(
        package_code TEXT NOT NULL, rate INTEGER NOT NULL, icd_from TEXT NOT NULL,
        icd_to TEXT NOT NULL, marker TEXT
    );
    CREATE TABLE diagnosis_legend(code TEXT PRIMARY KEY, text TEXT) WITHOUT ROWID;
    CREATE TABLE atc(
        code TEXT PRIMARY KEY, name TEXT, level INTEGER, parent TEXT,
        child_count INTEGER, item_count INTEGER
    ) WITHOUT ROWID;
    CREATE TABLE gs1_items(
        gtin TEXT PRIMARY KEY, unit_descriptor TEXT, brand TEXT, description TEXT,
        net_content TEXT, image_url TEXT, checks_passed INTEGER, checks_warning INTEGER,
        checks_failed INTEGER, checks_unable INTEGER
    ) WITHOUT ROWID;
    CREATE TABLE gs1_children(parent_gtin TEXT NOT NULL, child_gtin TEXT NOT NULL, quantity INTEGER NOT NULL);
    CREATE TABLE icd10(code TEXT PRIMARY KEY, name TEXT) WITHOUT ROWID;
    CREATE TABLE medicine_register(
        package_code TEXT PRIMARY KEY, name TEXT, form TEXT, strength TEXT, pack_size TEXT, atc TEXT,
        active_substance TEXT, leaflet_url TEXT, spc_url TEXT, prescription TEXT
    ) WITHOUT ROWID;
    CREATE VIRTUAL TABLE items_search USING fts5(
        aptcode UNINDEXED, name, producer, active_substance,
        tokenize = 'unicode61 remove_diacritics 0'
    );
    """

    /// Built after the bulk load (one sort each instead of 5 M random inserts).
    /// Each serves one of SNAPSHOT.md's read queries.
    /// `offers_by_item` keeps an item's offers in pharmacy order, the order
    /// the integrity check looks them up in (`SnapshotIntegrityCheck`); the
    /// price rides along so an item's offers and prices come from the index
    /// alone, and the few hundred of them sort by price in microseconds.
    public static let indexes = """
    CREATE INDEX offers_by_item ON offers(aptcode, pharmacy_id, price_cents);
    CREATE INDEX pharmacies_by_position ON pharmacies(latitude, longitude);
    CREATE INDEX atc_by_parent ON atc(parent);
    CREATE INDEX reimbursement_diagnoses_by_package ON reimbursement_diagnoses(package_code, rate);
    CREATE INDEX gs1_children_by_parent ON gs1_children(parent_gtin);
    CREATE INDEX items_by_gtin ON items(gtin);
    CREATE INDEX IF NOT EXISTS items_by_atc ON items(atc);
    """

    /// Tables the writer runs ANALYZE on; `offers` gets its statistics from
    /// the writer's own counts (`SnapshotWriter.finish()`).
    public static let analysedTables = [
        "meta", "pharmacies", "items", "reimbursements", "reimbursement_diagnoses",
        "diagnosis_legend", "atc", "gs1_items", "gs1_children", "icd10", "medicine_register",
    ]

    /// The tables whose row counts the manifest reports.
    public static let countedTables = [
        "pharmacies", "items", "offers", "reimbursements", "reimbursement_diagnoses",
        "diagnosis_legend", "atc", "gs1_items", "gs1_children", "icd10", "medicine_register",
    ]
}
