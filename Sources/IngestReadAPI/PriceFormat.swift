import Foundation
import IngestCore

/// How the read API writes a price in the snapshot's currency (SNAPSHOT.md,
/// money in other currencies): the convention of the currency's country,
/// `"2.37€"`, `"£2.37"`, `"2,37 kr"`, `"¥237"`, exact from the minor units.
///
/// The symbol, its place and the decimal sign come from Foundation (ICU's
/// data for the country's likely locale, Latin digits), asked once per
/// snapshot; each price is then written with integer arithmetic, without
/// grouping. The euro keeps the form the apps have always read (`2.37€`).
struct PriceFormat: Sendable, Equatable {
    let prefix: [UInt8]
    let separator: [UInt8]
    let suffix: [UInt8]
    let minorUnits: Int

    static let euro = PriceFormat(prefix: [], separator: Array(".".utf8), suffix: Array("€".utf8), minorUnits: 2)

    init(prefix: [UInt8], separator: [UInt8], suffix: [UInt8], minorUnits: Int) {
        self.prefix = prefix
        self.separator = separator
        self.suffix = suffix
        self.minorUnits = minorUnits
    }

    /// The format of `code` (ISO 4217); a code no country writes (`XAU`)
    /// takes ICU's own (`XAU 2.37`), or `2.37 XAU` where ICU has none.
    init(currency code: String) {
        guard code != "EUR" else {
            self = .euro
            return
        }
        let minor = ISO4217.minorUnits(code)
        self.minorUnits = minor
        // The currency's country is its code's first two letters (ISO 4217);
        // its likely language writes it (und-SE → sv-Latn-SE).
        let language = Locale.Language(identifier: "und-\(code.prefix(2))").maximalIdentifier
        let sampleDigits = "2" + String("3750".prefix(minor))
        let sample = minor == 0 ? "2" : "2." + sampleDigits.dropFirst()
        var text = language.hasPrefix("und")
            ? ""
            : (Decimal(string: sample) ?? 0).formatted(.currency(code: code).locale(Locale(identifier: language + "-u-nu-latn")).precision(.fractionLength(minor)))
        // Bidirectional marks go; no-break spaces become spaces (JSON readers show them alike, shells do not).
        text = String(String.UnicodeScalarView(text.unicodeScalars.compactMap { scalar in
            switch scalar.value {
            case 0x200E, 0x200F, 0x061C: nil
            case 0x00A0, 0x202F: " "
            default: scalar
            }
        }))
        let scalars = Array(text.unicodeScalars)
        guard let first = scalars.firstIndex(where: { $0 == "2" }), let last = scalars.lastIndex(where: { ("0"..."9").contains($0) }),
              String(String.UnicodeScalarView(scalars[first...last]).filter { ("0"..."9").contains($0) }) == sampleDigits else {
            self.prefix = []
            self.separator = Array(".".utf8)
            self.suffix = Array(" \(code)".utf8)
            return
        }
        func bytes(_ part: ArraySlice<Unicode.Scalar>) -> [UInt8] { Array(String(String.UnicodeScalarView(part)).utf8) }
        self.prefix = bytes(scalars[..<first])
        self.suffix = bytes(scalars[(last + 1)...])
        self.separator = minor == 0 ? [] : bytes(scalars[(first + 1)..<(last - minor + 1)])
    }

    /// `237` → `"2.37€"` (or the currency's form); nil → `""`.
    func string(_ minor: Int64?) -> String {
        guard let minor else { return "" }
        var bytes: [UInt8] = []
        append(minor, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The price written into `bytes`: the 500 prices of `?q=ip` make no
    /// strings and no arrays (a `String` for the whole units and an array
    /// for the fraction were 12 % of `?q=ip`'s time under wrk, perf).
    func append(_ minor: Int64, to bytes: inout some ByteAppending & ~Copyable) {
        if minor < 0 { bytes.appendByte(UInt8(ascii: "-")) }
        bytes.appendBytes(prefix)
        let magnitude = minor.magnitude
        var scale: UInt64 = 1
        for _ in 0..<minorUnits { scale *= 10 }
        ReadAPIFormat.appendDecimal(magnitude / scale, to: &bytes)
        if minorUnits > 0 {
            bytes.appendBytes(separator)
            ReadAPIFormat.appendDigits(magnitude % scale, count: minorUnits, to: &bytes)
        }
        bytes.appendBytes(suffix)
    }
}
