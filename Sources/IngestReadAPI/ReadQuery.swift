import IngestCore

/// One request of READ_API.md, parsed from its query parameters: which of
/// the queries, with its arguments checked. Everything a client can get
/// wrong is a `ReadQuery.Invalid` (HTTP 400) here, before any SQL runs.
public enum ReadQuery: Equatable, Sendable {
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

    case pharmacies(near: GeoPoint?, onlyNearest: Bool, page: ResultPage = .first, when: When = .any)
    /// `atc`: only items whose ATC code starts with it (Version 2), alone or with `text`.
    /// `prescription`: `rx=1` only prescription-only items, `rx=0` the others, nil either (Version 3).
    case itemSearch(text: String, atc: String? = nil, prescription: Bool? = nil, page: ResultPage = .first)
    /// `inStock`: only pharmacies whose quantity is above zero or not reported (Version 2).
    case itemPharmacies(aptcode: String, near: GeoPoint?, onlyNearest: Bool, inStock: Bool = false, page: ResultPage = .first, when: When = .any)
    case itemDetails(aptcode: String, pharmacyID: String)
    case atc(parent: String?)
    /// Version 2: one offer's shelf prices over time, newest first.
    case priceHistory(aptcode: String, pharmacyID: String)
    /// Version 2: items the register calls the same medicine, where they are sold, cheapest first at `tier` (nil: shelf price).
    /// Version 3: `radiusKm` limits the search around `near`; `anyPack` (`packs=any`) also offers other pack sizes, ranked per unit.
    case equivalents(aptcode: String, near: GeoPoint?, tier: Int?, limit: Int, when: When = .any, radiusKm: Double? = nil, anyPack: Bool = false)
    /// Version 3: items reimbursed for a diagnosis (a listed range includes `icd`), with their tiers and the code's ICD-10 name.
    case diagnosis(icd: String, page: ResultPage = .first)
    /// Version 3: the GS1 datasheet of a GTIN at any level (14 digits here).
    case datasheet(gtin: String)
    /// Not one of the five: the changeset from a client's version to current (SNAPSHOT.md).
    case changes(since: String)

    /// Whether the answer depends on the clock: pharmacies' `on` and `oh`, `openNow`, `maxAge`.
    /// A request with `at` does not (it names its moment), nor do the other queries.
    public var saysWhatIsOpen: Bool {
        switch self {
        case .pharmacies(_, _, _, let when), .itemPharmacies(_, _, _, _, _, let when), .equivalents(_, _, _, _, let when, _, _): return when.at == nil
        default: return false
        }
    }

    /// The reason a request is refused, as the client reads it in `{"error": …}`.
    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public var reason: String
        public init(reason: String) { self.reason = reason }
        public var description: String { reason }
    }

    /// `parameters`: the request's query parameters; the first value of a repeated one counts.
    /// Codes (aptcode, ATC) are matched without regard to letter case (READ_API.md, Version 2):
    /// the snapshot holds them upper-case (FEEDS.md), so they are upper-cased here.
    public init(_ parameters: [String: String]) throws(Invalid) {
        guard let query = parameters["q"] else { throw Invalid(reason: "missing parameter q (p, i, ip, id, a, h, eq, dx, g or changes)") }
        func required(_ name: String) throws(Invalid) -> String {
            guard let value = parameters[name], !value.isEmpty else { throw Invalid(reason: "q=\(query) needs the parameter \(name)") }
            return value
        }
        try Self.checkFormats(parameters)
        let when = try Self.when(parameters)
        switch query {
        case "p":
            let near = try Self.position(parameters)
            self = .pharmacies(near: near, onlyNearest: try Self.onlyNearest(parameters, near: near), page: try ResultPage(parameters), when: when)
        case "i":
            let atc = parameters["atc"].flatMap { $0.isEmpty ? nil : $0.uppercased() }
            guard let text = parameters["search"] ?? atc.map({ _ in "" }) else { throw Invalid(reason: "q=i needs the parameter search or atc") }
            self = .itemSearch(text: text, atc: atc, prescription: parameters["rx"].map { $0 == "1" }, page: try ResultPage(parameters))
        case "ip":
            let aptcode = try required("aptcode").uppercased()
            let near = try Self.position(parameters)
            let inStock: Bool
            switch parameters["inStock"] {
            case nil, "0": inStock = false
            case "1": inStock = true
            case let other?: throw Invalid(reason: "inStock is 0 or 1, not \(Self.quoted(other))")
            }
            self = .itemPharmacies(aptcode: aptcode, near: near, onlyNearest: try Self.onlyNearest(parameters, near: near), inStock: inStock,
                                   page: try ResultPage(parameters), when: when)
        case "id":
            self = .itemDetails(aptcode: try required("aptcode").uppercased(), pharmacyID: try required("client_id"))
        case "a":
            self = .atc(parent: parameters["atc"].flatMap { $0.isEmpty ? nil : $0.uppercased() })
        case "h":
            // Codes are matched without regard to case (READ_API.md, Version 2); aptcodes are stored upper-case.
            self = .priceHistory(aptcode: try required("aptcode").uppercased(), pharmacyID: try required("client_id"))
        case "eq":
            let aptcode = try required("aptcode").uppercased()
            let tier: Int?
            switch parameters["tier"] {
            case nil: tier = nil
            case let rate? where ["50", "75", "90", "100"].contains(rate): tier = Int(rate)
            case let other?: throw Invalid(reason: "tier is 50, 75, 90 or 100, not \(Self.quoted(other))")
            }
            let page = try ResultPage(parameters)
            let near = try Self.position(parameters)
            var radius: Double?
            if let text = parameters["radius"] {
                guard let km = Self.degrees(text), km > 0, km <= 20_000 else { throw Invalid(reason: "radius is a number of kilometres above 0, not \(Self.quoted(text))") }
                guard near != nil else { throw Invalid(reason: "radius needs latitude and longitude") }
                radius = km
            }
            let anyPack: Bool
            switch parameters["packs"] {
            case nil, "same": anyPack = false
            case "any": anyPack = true
            case let other?: throw Invalid(reason: "packs is any or same, not \(Self.quoted(other))")
            }
            self = .equivalents(aptcode: aptcode, near: near, tier: tier, limit: min(page.limit ?? Self.equivalentsLimit, ResultPage.maximum),
                                when: when, radiusKm: radius, anyPack: anyPack)
        case "dx":
            let icd = try required("icd").uppercased()
            guard DiagnosisNotation.isCode(icd) else { throw Invalid(reason: "icd is an ICD-10 code such as J45 or J45.0, not \(Self.quoted(icd))") }
            self = .diagnosis(icd: icd, page: try ResultPage(parameters))
        case "g":
            let text = try required("gtin")
            guard let gtin = ScannedCode(text)?.gtin else {
                throw Invalid(reason: "gtin is a GTIN (8 to 14 digits with their check digit, a GS1 element string or a Digital Link), not \(Self.quoted(text))")
            }
            self = .datasheet(gtin: gtin)
        case "changes":
            self = .changes(since: try required("since"))
        default:
            throw Invalid(reason: "unknown q=\(Self.quoted(query)): expected p, i, ip, id, a, h, eq, dx, g or changes")
        }
    }

    /// `openNow`, `at` and `maxAge`, checked whatever the query (as `checkFormats`).
    private static func when(_ parameters: [String: String]) throws(Invalid) -> When {
        var when = When()
        if let text = parameters["openNow"] {
            guard text == "0" || text == "1" else { throw Invalid(reason: "openNow is 0 or 1, not \(Self.quoted(text))") }
            when.openNow = text == "1"
        }
        if let text = parameters["at"] {
            guard let at = RequestedTime(text) else {
                throw Invalid(reason: "at is an ISO 8601 time such as 2025-11-21T10:30 or 2025-11-21T10:30:00+02:00, not \(Self.quoted(text))")
            }
            when.at = at
        }
        if let text = parameters["maxAge"] {
            guard text.utf8.count <= 6, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let days = Int(text) else {
                throw Invalid(reason: "maxAge is a whole number of days, not \(Self.quoted(text))")
            }
            when.maxAgeDays = days
        }
        return when
    }

    /// Both of `latitude` and `longitude` as decimal degrees in range, or neither.
    private static func position(_ parameters: [String: String]) throws(Invalid) -> GeoPoint? {
        switch (parameters["latitude"], parameters["longitude"]) {
        case (nil, nil):
            return nil
        case (let latitude?, let longitude?):
            guard let φ = Self.degrees(latitude), abs(φ) <= 90 else { throw Invalid(reason: "latitude is not a number of degrees in -90…90: \(Self.quoted(latitude))") }
            guard let λ = Self.degrees(longitude), abs(λ) <= 180 else {
                throw Invalid(reason: "longitude is not a number of degrees in -180…180: \(Self.quoted(longitude))")
            }
            return GeoPoint(latitude: φ, longitude: λ)
        default:
            throw Invalid(reason: "latitude and longitude come together")
        }
    }

    /// Every typed parameter is checked whatever the query, as
    /// `/openapi.json` declares it for all: a `latitude` that means nothing
    /// to `q=a` is ignored when it is a number and refused when it is not,
    /// so the document and the server agree on what a valid request is.
    private static func checkFormats(_ parameters: [String: String]) throws(Invalid) {
        for (name, range) in [("latitude", 90.0), ("longitude", 180.0)] {
            guard let text = parameters[name] else { continue }
            guard let value = Self.degrees(text), abs(value) <= range else {
                throw Invalid(reason: "\(name) is not a number of degrees in -\(Int(range))…\(Int(range)): \(Self.quoted(text))")
            }
        }
        for name in ["onlyNearest", "inStock", "rx"] {
            if let value = parameters[name], value != "0", value != "1" { throw Invalid(reason: "\(name) is 0 or 1, not \(Self.quoted(value))") }
        }
        if let radius = parameters["radius"], !(Self.degrees(radius).map { $0 > 0 && $0 <= 20_000 } ?? false) {
            throw Invalid(reason: "radius is a number of kilometres above 0, not \(Self.quoted(radius))")
        }
        if let packs = parameters["packs"], packs != "any", packs != "same" { throw Invalid(reason: "packs is any or same, not \(Self.quoted(packs))") }
        if let icd = parameters["icd"], !DiagnosisNotation.isCode(icd.uppercased()) {
            throw Invalid(reason: "icd is an ICD-10 code such as J45 or J45.0, not \(Self.quoted(icd))")
        }
        if let tier = parameters["tier"], !["50", "75", "90", "100"].contains(tier) {
            throw Invalid(reason: "tier is 50, 75, 90 or 100, not \(Self.quoted(tier))")
        }
        _ = try ResultPage(parameters)
    }

    /// A plain decimal number (`59.437`, `-1`, `24.`): no exponent, no `nan`, no hex.
    private static func degrees(_ text: String) -> Double? {
        guard !text.isEmpty, text.utf8.count <= 32,
              text.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x2D || $0 == 0x2B }) else { return nil }
        return Double(text)
    }

    private static func onlyNearest(_ parameters: [String: String], near: GeoPoint?) throws(Invalid) -> Bool {
        switch parameters["onlyNearest"] {
        case nil, "0": return false
        case "1":
            guard near != nil else { throw Invalid(reason: "onlyNearest=1 needs latitude and longitude") }
            return true
        case let other?: throw Invalid(reason: "onlyNearest is 0 or 1, not \(Self.quoted(other))")
        }
    }

    /// `?q=eq` answers this many without a `limit` (READ_API.md).
    static let equivalentsLimit = 20

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
