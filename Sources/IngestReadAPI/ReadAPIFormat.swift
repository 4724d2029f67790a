import Foundation

/// How READ_API.md writes values: every value a string, prices with two
/// decimals and the euro sign, an absent value as "".
enum ReadAPIFormat {
    /// `237` → `"2.37€"`; nil → `""`. Integer arithmetic: cents are exact.
    static func price(_ cents: Int64?) -> String {
        guard let cents else { return "" }
        let sign = cents < 0 ? "-" : ""
        let magnitude = cents.magnitude
        let fraction = magnitude % 100
        return "\(sign)\(magnitude / 100).\(fraction < 10 ? "0" : "")\(fraction)€"
    }

    /// `"368 m"` under one kilometre, whole kilometres from there (`"163 km"`);
    /// a distance that rounds to 1000 m is `"1 km"`.
    static func distance(metres: Double) -> String {
        let rounded = metres.rounded()
        if rounded < 1000 { return "\(Int(rounded)) m" }
        return "\(Int((metres / 1000).rounded())) km"
    }

    /// The date of an ISO 8601 time as `dd.MM.yyyy`, in the time's own offset
    /// (the pharmacy's local date): `2011-05-19T23:05:00+03:00` → `19.05.2011`.
    static func day(_ iso: String?) -> String {
        guard let iso, iso.utf8.count >= 10 else { return "" }
        let parts = iso.prefix(10).split(separator: "-")
        guard parts.count == 3 else { return "" }
        return "\(parts[2]).\(parts[1]).\(parts[0])"
    }

    /// `"59.4380086,24.8713330"`: seven decimals, about a centimetre.
    static func position(latitude: Double?, longitude: Double?) -> String {
        guard let latitude, let longitude else { return "" }
        return String(format: "%.7f,%.7f", latitude, longitude)
    }
}
