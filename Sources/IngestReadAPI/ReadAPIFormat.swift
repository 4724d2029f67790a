import Foundation

/// How READ_API.md writes values: every value a string, an absent value as
/// "" (prices: `PriceFormat`, in the snapshot's currency).
enum ReadAPIFormat {
    /// `"368 m"` under one kilometre, whole kilometres from there (`"163 km"`);
    /// a distance that rounds to 1000 m is `"1 km"`. Only ever written into
    /// an answer's bytes (`di`), so there is no `String` form.
    static func appendDistance(metres: Double, to bytes: inout some ByteAppending & ~Copyable) {
        let rounded = metres.rounded()
        if rounded < 1000 {
            appendDecimal(UInt64(rounded), to: &bytes)
            bytes.appendByte(UInt8(ascii: " "))
        } else {
            appendDecimal(UInt64((metres / 1000).rounded()), to: &bytes)
            bytes.appendByte(UInt8(ascii: " "))
            bytes.appendByte(UInt8(ascii: "k"))
        }
        bytes.appendByte(UInt8(ascii: "m"))
    }

    /// `value` in decimal digits, without a `String` in between.
    static func appendDecimal(_ value: UInt64, to bytes: inout some ByteAppending & ~Copyable) {
        appendDigits(value, count: decimalDigits(value), to: &bytes)
    }

    /// How many decimal digits `value` has (one for zero).
    static func decimalDigits(_ value: UInt64) -> Int {
        var digits = 1, rest = value
        while rest >= 10 {
            rest /= 10
            digits += 1
        }
        return digits
    }

    /// The last `count` decimal digits of `value`, zero-padded, most significant first.
    static func appendDigits(_ value: UInt64, count: Int, to bytes: inout some ByteAppending & ~Copyable) {
        var scale: UInt64 = 1
        for _ in 1..<Swift.max(count, 1) { scale *= 10 }
        while scale > 0 {
            bytes.appendByte(UInt8(ascii: "0") + UInt8(value / scale % 10))
            scale /= 10
        }
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
