import IngestCore

/// A request's query parameters as the queries read them, with the checks
/// several queries share. The first value of a repeated parameter counts.
public struct QueryParameters: Sendable {
    public let values: [String: String]

    public init(_ values: [String: String]) {
        self.values = values
    }

    public subscript(name: String) -> String? { values[name] }

    /// `q`, the query's name.
    var query: String { values["q"] ?? "" }

    /// A parameter the query cannot do without.
    public func required(_ name: String) throws(ReadQuery.Invalid) -> String {
        guard let value = values[name], !value.isEmpty else { throw ReadQuery.Invalid(reason: "q=\(query) needs the parameter \(name)") }
        return value
    }

    /// A code, matched without regard to letter case (READ_API.md, Version 2):
    /// the snapshot holds codes upper-case (FEEDS.md).
    public func requiredCode(_ name: String) throws(ReadQuery.Invalid) -> String {
        try required(name).uppercased()
    }

    /// `limit` and `offset`.
    public func page() throws(ReadQuery.Invalid) -> ResultPage {
        try ResultPage(values)
    }

    /// `openNow`, `at` and `maxAge` (Version 3).
    public func when() throws(ReadQuery.Invalid) -> ReadQuery.When {
        var when = ReadQuery.When()
        if let text = values["openNow"] {
            guard text == "0" || text == "1" else { throw ReadQuery.Invalid(reason: "openNow is 0 or 1, not \(ReadQuery.quoted(text))") }
            when.openNow = text == "1"
        }
        if let text = values["at"] {
            guard let at = RequestedTime(text) else {
                throw ReadQuery.Invalid(reason: "at is an ISO 8601 time such as 2025-11-21T10:30 or 2025-11-21T10:30:00+02:00, not \(ReadQuery.quoted(text))")
            }
            when.at = at
        }
        if let text = values["maxAge"] {
            guard text.utf8.count <= 6, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let days = Int(text) else {
                throw ReadQuery.Invalid(reason: "maxAge is a whole number of days, not \(ReadQuery.quoted(text))")
            }
            when.maxAgeDays = days
        }
        return when
    }

    /// Both of `latitude` and `longitude` as decimal degrees in range, or neither.
    public func position() throws(ReadQuery.Invalid) -> GeoPoint? {
        switch (values["latitude"], values["longitude"]) {
        case (nil, nil):
            return nil
        case (let latitude?, let longitude?):
            guard let φ = Self.degrees(latitude), abs(φ) <= 90 else {
                throw ReadQuery.Invalid(reason: "latitude is not a number of degrees in -90…90: \(ReadQuery.quoted(latitude))")
            }
            guard let λ = Self.degrees(longitude), abs(λ) <= 180 else {
                throw ReadQuery.Invalid(reason: "longitude is not a number of degrees in -180…180: \(ReadQuery.quoted(longitude))")
            }
            return GeoPoint(latitude: φ, longitude: λ)
        default:
            throw ReadQuery.Invalid(reason: "latitude and longitude come together")
        }
    }

    /// `onlyNearest=1`, which needs a position.
    public func onlyNearest(near: GeoPoint?) throws(ReadQuery.Invalid) -> Bool {
        switch values["onlyNearest"] {
        case nil, "0": return false
        case "1":
            guard near != nil else { throw ReadQuery.Invalid(reason: "onlyNearest=1 needs latitude and longitude") }
            return true
        case let other?: throw ReadQuery.Invalid(reason: "onlyNearest is 0 or 1, not \(ReadQuery.quoted(other))")
        }
    }

    /// A plain decimal number (`59.437`, `-1`, `24.`): no exponent, no `nan`, no hex.
    static func degrees(_ text: String) -> Double? {
        guard !text.isEmpty, text.utf8.count <= 32,
              text.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x2D || $0 == 0x2B }) else { return nil }
        return Double(text)
    }

    /// Every typed parameter is checked whatever the query, as
    /// `/openapi.json` declares it for all: a `latitude` that means nothing
    /// to `q=a` is ignored when it is a number and refused when it is not,
    /// so the document and the server agree on what a valid request is.
    func checkFormats() throws(ReadQuery.Invalid) {
        for (name, range) in [("latitude", 90.0), ("longitude", 180.0)] {
            guard let text = values[name] else { continue }
            guard let value = Self.degrees(text), abs(value) <= range else {
                throw ReadQuery.Invalid(reason: "\(name) is not a number of degrees in -\(Int(range))…\(Int(range)): \(ReadQuery.quoted(text))")
            }
        }
        for name in ["onlyNearest", "inStock", "rx"] {
            if let value = values[name], value != "0", value != "1" { throw ReadQuery.Invalid(reason: "\(name) is 0 or 1, not \(ReadQuery.quoted(value))") }
        }
        if let radius = values["radius"], !(Self.degrees(radius).map { $0 > 0 && $0 <= 20_000 } ?? false) {
            throw ReadQuery.Invalid(reason: "radius is a number of kilometres above 0, not \(ReadQuery.quoted(radius))")
        }
        if let packs = values["packs"], packs != "any", packs != "same" {
            throw ReadQuery.Invalid(reason: "packs is any or same, not \(ReadQuery.quoted(packs))")
        }
        if let icd = values["icd"], !DiagnosisNotation.isCode(icd.uppercased()) {
            throw ReadQuery.Invalid(reason: "icd is an ICD-10 code such as J45 or J45.0, not \(ReadQuery.quoted(icd))")
        }
        if let tier = values["tier"], !["50", "75", "90", "100"].contains(tier) {
            throw ReadQuery.Invalid(reason: "tier is 50, 75, 90 or 100, not \(ReadQuery.quoted(tier))")
        }
        _ = try page()
        _ = try when()
    }
}
