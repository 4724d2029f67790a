import IngestCore

/// One request of READ_API.md, parsed from its query parameters: which of
/// the registered queries (`QueryRegistry`), with its arguments checked.
/// Everything a client can get wrong is a `ReadQuery.Invalid` (HTTP 400)
/// here, before any SQL runs.
public struct ReadQuery: Equatable, Sendable {
    /// The query with its arguments: one of the registry's types.
    public let request: any ReadAPIQuery

    public init(_ request: any ReadAPIQuery) {
        self.request = request
    }

    /// Version 3's "where to go now": `openNow=1`, `at`, and `maxAge` (offers only).
    public struct When: Equatable, Sendable {
        public var openNow = false
        public var at: RequestedTime?
        /// Days of 24 hours; nil: any age.
        public var maxAgeDays: Int?

        public init(openNow: Bool = false, at: RequestedTime? = nil, maxAgeDays: Int? = nil) {
            self.openNow = openNow
            self.at = at
            self.maxAgeDays = maxAgeDays
        }

        public static let any = When()
    }

    /// Whether the answer depends on the clock: pharmacies' `on` and `oh`, `openNow`, `maxAge`.
    /// A request with `at` does not (it names its moment), nor do the other queries.
    public var saysWhatIsOpen: Bool { request.saysWhatIsOpen }

    /// `q`: the query's name.
    public var name: String { type(of: request).name }

    public static func == (lhs: ReadQuery, rhs: ReadQuery) -> Bool { lhs.request.isEqual(to: rhs.request) }

    /// The reason a request is refused, as the client reads it in `{"error": …}`.
    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public var reason: String
        public init(reason: String) { self.reason = reason }
        public var description: String { reason }
    }

    /// `parameters`: the request's query parameters; the first value of a repeated one counts.
    /// Every typed parameter is checked whatever the query (`QueryParameters.checkFormats`),
    /// then the query named by `q` reads its own.
    public init(_ parameters: [String: String], registry: QueryRegistry = .builtIn) throws(Invalid) {
        guard let name = parameters["q"] else { throw Invalid(reason: "missing parameter q (\(registry.namesInWords))") }
        let values = QueryParameters(parameters)
        try values.checkFormats()
        guard let query = registry.query(named: name) else {
            throw Invalid(reason: "unknown q=\(Self.quoted(name)): expected \(registry.namesInWords)")
        }
        self.init(try query.init(values))
    }

    // The queries by the names READ_API.md gives them.

    public static func pharmacies(near: GeoPoint?, onlyNearest: Bool, page: ResultPage = .first, when: When = .any) -> ReadQuery {
        ReadQuery(PharmacyListQuery(near: near, onlyNearest: onlyNearest, page: page, when: when))
    }

    public static func itemSearch(text: String, atc: String? = nil, prescription: Bool? = nil, page: ResultPage = .first) -> ReadQuery {
        ReadQuery(ItemSearchQuery(text: text, atc: atc, prescription: prescription, page: page))
    }

    public static func itemPharmacies(aptcode: String, near: GeoPoint?, onlyNearest: Bool, inStock: Bool = false, page: ResultPage = .first,
                                      when: When = .any) -> ReadQuery {
        ReadQuery(ItemPharmaciesQuery(aptcode: aptcode, near: near, onlyNearest: onlyNearest, inStock: inStock, page: page, when: when))
    }

    public static func itemDetails(aptcode: String, pharmacyID: String) -> ReadQuery {
        ReadQuery(ItemDetailsQuery(OfferKey(aptcode: aptcode, pharmacyID: pharmacyID)))
    }

    public static func atc(parent: String?) -> ReadQuery { ReadQuery(ATCTreeQuery(parent: parent)) }

    public static func priceHistory(aptcode: String, pharmacyID: String) -> ReadQuery {
        ReadQuery(PriceHistoryQuery(OfferKey(aptcode: aptcode, pharmacyID: pharmacyID)))
    }

    public static func equivalents(aptcode: String, near: GeoPoint?, tier: Int?, limit: Int, when: When = .any, radiusKm: Double? = nil,
                                   anyPack: Bool = false) -> ReadQuery {
        ReadQuery(EquivalentsQuery(aptcode: aptcode, near: near, tier: tier, limit: limit, when: when, radiusKm: radiusKm, anyPack: anyPack))
    }

    public static func diagnosis(icd: String, page: ResultPage = .first) -> ReadQuery { ReadQuery(DiagnosisQuery(icd: icd, page: page)) }

    public static func datasheet(gtin: String) -> ReadQuery { ReadQuery(DatasheetQuery(gtin: gtin)) }

    public static func changes(since: String) -> ReadQuery { ReadQuery(ChangesQuery(since: since)) }

    /// A client's text inside an error message: at most 40 characters, in
    /// quotes, control characters escaped, so a hostile parameter neither
    /// grows the answer nor reaches a terminal that shows the log raw.
    static func quoted(_ text: String) -> String {
        let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
        return "\"" + shown.unicodeScalars.map { scalar in
            scalar.properties.generalCategory == .control || scalar == "\"" || scalar == "\\"
                ? scalar.escaped(asASCII: false) : String(scalar)
        }.joined() + "\""
    }
}
