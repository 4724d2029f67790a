/// The snapshot's tables, as SNAPSHOT.md fixes them for the read services,
/// plus the indexes their five queries need: the core tables here, each
/// reference kind's from the kind. Changing a required table or column is a
/// `version` bump.
public struct SnapshotSchema: Sendable {
    /// 2: `gs1_children` and `reimbursement_diagnoses` gained a `position` and a primary key, so that changesets carry them.
    /// 3: `items` is a rowid table and both search indexes take their text from it (`content`), so that generic clients find them.
    /// 4: `price_history`, each offer's shelf prices over the nights (SNAPSHOT.md "Price history").
    /// 5: `offers.price_since`; `price_history` holds only replaced prices; the `prices_over_time` view.
    public static let version = 5
    /// `PRAGMA application_id` of every snapshot ("INGS"): a file tells what
    /// it is (`file(1)` and readers check it), beside `user_version` = `version`.
    public static let applicationID: Int32 = 0x494E_4753

    /// In creation order: the core tables, the given ones, the search indexes last.
    public let tables: [SnapshotTable]

    public init(adding tables: [SnapshotTable]) {
        self.tables = Self.core + tables + Self.searchIndexes
    }

    var createSQL: String { (tables.map(\.create) + Self.views).map { $0 + ";" }.joined(separator: "\n") }
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
    /// price and quantity ride along so an item's offers, prices and stock
    /// (`?q=ip`) come from the index alone, and the few hundred of them sort
    /// by price in microseconds. The tier prices ride along too: `?q=eq`
    /// ranks every offer of a medicine's equivalents (1,500 on the bench
    /// snapshot) by the patient's price, and a table lookup for each took
    /// 8 ms a request (p99 101 ms under wrk).
    public static let core: [SnapshotTable] = [
        SnapshotTable(name: "meta", create: "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID", counted: false,
                      about: TableAbout("About this snapshot", "The snapshot's version, schema version, creation time and importer.",
                                        columns: [("key", "schema_version, snapshot_version, created_at, importer_version, run_date, as_of, …"),
                                                  ("value", "Its value, as text")])),
        SnapshotTable(name: "pharmacies", create: """
            CREATE TABLE pharmacies(
                id TEXT PRIMARY KEY, name TEXT, chain_id TEXT, region TEXT, address TEXT,
                phone TEXT, open_hours TEXT, latitude REAL, longitude REAL,
                last_refresh TEXT, item_count INTEGER, stale INTEGER NOT NULL DEFAULT 0, loaded_at TEXT
            ) WITHOUT ROWID
            """, indexes: ["CREATE INDEX pharmacies_by_position ON pharmacies(latitude, longitude)"],
            about: TableAbout("Pharmacies", "One row per pharmacy with stock in this snapshot, from the pharmacy registry.", columns: [
                ("id", "Pharmacy id in the registry"), ("name", "Name"), ("chain_id", "Chain the pharmacy belongs to"),
                ("region", "Region (town or county)"), ("address", "Street address"), ("phone", "Phone number"),
                ("open_hours", "Opening hours as published"), ("latitude", "Latitude, degrees (WGS 84)"),
                ("longitude", "Longitude, degrees (WGS 84)"), ("last_refresh", "Export time of the stock data in this snapshot (ISO 8601)"),
                ("item_count", "Number of items in its stock"),
                ("stale", "1 when its offers were carried over from an earlier snapshot: tonight's feed was missing or rejected"),
                ("loaded_at", "Run time at which its offers were last loaded from a feed (carry-over ages from it)"),
            ], label: "name", sort: "name")),
        SnapshotTable(name: "pharmacy_hours", create: """
            CREATE TABLE pharmacy_hours(
                pharmacy_id TEXT REFERENCES pharmacies(id), weekday INTEGER, opens TEXT, closes TEXT,
                PRIMARY KEY (pharmacy_id, weekday, opens)
            ) WITHOUT ROWID
            """,
            about: TableAbout("Opening hours", "Each pharmacy's weekly openings, read from the registry's open_hours (OpenStreetMap syntax or the Estonian short form); none where that text is free text.", columns: [
                ("pharmacy_id", "Pharmacy"), ("weekday", "1 Monday … 7 Sunday"), ("opens", "Opens, HH:MM local time"),
                ("closes", "Closes, HH:MM local time (24:00 the day's end; hours past midnight continue on the next day)"),
            ], sort: "pharmacy_id")),
        SnapshotTable(name: "items", create: """
            CREATE TABLE items(
                aptcode TEXT PRIMARY KEY, package_code TEXT, gtin TEXT, name TEXT, producer TEXT,
                atc TEXT, active_substance TEXT, info_url TEXT, image_url TEXT
            )
            """, indexes: ["CREATE INDEX items_by_gtin ON items(gtin)", "CREATE INDEX items_by_package_code ON items(package_code)", "CREATE INDEX IF NOT EXISTS items_by_atc ON items(atc)"],
            about: TableAbout("Items", "One row per item sold anywhere in this snapshot. The search box finds any part of a word.", columns: [
                ("aptcode", "Item code of the pharmacy systems"), ("package_code", "Package code of the medicine register and reimbursement list"),
                ("gtin", "GTIN, 14 digits"), ("name", "Name as sold"), ("producer", "Producer or marketing authorisation holder"),
                ("atc", "ATC code"), ("active_substance", "Active substance"), ("info_url", "Package leaflet, from the medicine register"),
                ("image_url", "Image, from the GS1 datasheet"),
            ], label: "name", sort: "name", searchIndex: "items_substring")),
        SnapshotTable(name: "offers", create: """
            CREATE TABLE offers(
                pharmacy_id TEXT NOT NULL REFERENCES pharmacies(id), aptcode TEXT NOT NULL REFERENCES items(aptcode),
                price_cents INTEGER NOT NULL, price_since TEXT NOT NULL,
                quantity INTEGER, limit_price_cents INTEGER, price_50_cents INTEGER,
                price_75_cents INTEGER, price_90_cents INTEGER, price_100_cents INTEGER,
                PRIMARY KEY (pharmacy_id, aptcode)
            ) WITHOUT ROWID
            """, indexes: ["""
                CREATE INDEX offers_by_item ON offers(aptcode, pharmacy_id, price_cents, quantity,
                                                      price_50_cents, price_75_cents, price_90_cents, price_100_cents)
                """], analysed: false,
            about: TableAbout("Offers", "One row per item in a pharmacy's stock: the shelf price and what a patient pays at each reimbursement tier.", columns: [
                ("pharmacy_id", "Pharmacy"), ("aptcode", "Item"), ("price_cents", "Shelf price, euro cents"),
                ("price_since", "Export time of the feed that first showed this price"),
                ("quantity", "Units in stock; empty where the feed reports no stock levels"),
                ("limit_price_cents", "Reimbursement limit price, euro cents"),
                ("price_50_cents", "Patient pays at the 50 % tier, euro cents; empty without that tier"),
                ("price_75_cents", "Patient pays at the 75 % tier, euro cents; empty without that tier"),
                ("price_90_cents", "Patient pays at the 90 % tier, euro cents; empty without that tier"),
                ("price_100_cents", "Patient pays at the 100 % tier, euro cents; empty without that tier"),
            ])),
        SnapshotTable(name: "price_history", create: """
            CREATE TABLE price_history(
                pharmacy_id TEXT NOT NULL REFERENCES pharmacies(id), aptcode TEXT NOT NULL REFERENCES items(aptcode),
                since TEXT NOT NULL, price_cents INTEGER NOT NULL,
                PRIMARY KEY (pharmacy_id, aptcode, since)
            ) WITHOUT ROWID
            """, analysed: false,
            about: TableAbout("Price history", "The shelf prices an offer had before its current one, each from the export that first showed it; kept while in force within --history-days. prices_over_time adds the current ones.", columns: [
                ("pharmacy_id", "Pharmacy"), ("aptcode", "Item"), ("since", "Export time of the feed that first showed this price"),
                ("price_cents", "Shelf price, euro cents, until the next row's since (or the offer's price_since)"),
            ], sort: "since")),
    ]

    /// Views over the tables, for Datasette and SQL readers. `prices_over_time`
    /// is every price an offer has had: the replaced ones in `price_history`
    /// and the one in force in `offers` (SNAPSHOT.md "Price history").
    static let views = ["""
        CREATE VIEW prices_over_time(pharmacy_id, aptcode, since, price_cents) AS
            SELECT pharmacy_id, aptcode, since, price_cents FROM price_history
            UNION ALL
            SELECT pharmacy_id, aptcode, price_since, price_cents FROM offers
        """]

    /// The search indexes over `items`, both external-content FTS5 tables:
    /// they hold only the index, read their text from `items` by rowid (the
    /// reason `items` keeps one) and are rebuilt from it after the load and
    /// after a changeset is applied (`SnapshotChangeset.apply`).
    ///
    /// `items_search` is the contract's word-prefix index (SNAPSHOT.md). Its
    /// `content="items"` is written with double quotes because that is the
    /// spelling Datasette and sqlite-utils look for to find a table's index.
    ///
    /// `items_substring` (trigram) is for generic clients' search boxes:
    /// Datasette quotes each word (`"ibu"`), which is a whole-token match
    /// in `items_search` and finds no IBUMETIN, but a substring match here.
    /// Its `content=items` is left unquoted on purpose, so that detection
    /// keeps finding `items_search`; the Datasette metadata names this one.
    ///
    /// `items_folded` is the read API's forgiving search (READ_API.md,
    /// Version 3): the same words without case or diacritics (`orn` finds
    /// `ÕRN`), and its vocabulary (`fts5vocab`) is what a typo is corrected
    /// against. `items_search` stays as the contract defines it, with
    /// diacritics: the API ranks its matches first.
    static let searchIndexes = [
        SnapshotTable(name: "items_search", create: """
            CREATE VIRTUAL TABLE items_search USING fts5(
                aptcode UNINDEXED, name, producer, active_substance,
                content="items", tokenize = 'unicode61 remove_diacritics 0'
            )
            """, analysed: false, counted: false,
            about: TableAbout("Item search (word prefixes)", "FTS5 index over items: MATCH 'ibu*'.", hidden: true)),
        SnapshotTable(name: "items_substring", create: """
            CREATE VIRTUAL TABLE items_substring USING fts5(
                name, producer, active_substance, content=items, tokenize = 'trigram'
            )
            """, analysed: false, counted: false,
            about: TableAbout("Item search (any part of a word)", "FTS5 trigram index over items, for search boxes.", hidden: true)),
        SnapshotTable(name: "items_folded", create: """
            CREATE VIRTUAL TABLE items_folded USING fts5(
                name, producer, active_substance, content=items, tokenize = 'unicode61 remove_diacritics 2'
            )
            """, analysed: false, counted: false,
            about: TableAbout("Item search (without diacritics)", "FTS5 index over items, case and diacritics folded: MATCH 'orn*' finds ÕRN.",
                              hidden: true)),
    ]

    /// The external-content search indexes (`searchIndexes`): rebuilt, not written row by row.
    public static let searchIndexNames = searchIndexes.map(\.name)
}
