/// A price as shops and price lists write it (FEEDS.md §12.1): a decimal
/// number, perhaps with thousands separators the mapping names, perhaps
/// with the currency's symbol or ISO code before or after it, with or
/// without a space (`$1.820`, `1,82 €`, `CHF 16.55`, `16.55 CHF`). One
/// parser for every mapped format; RAX and Noom keep their fixed rules.
public enum PriceText {
    public enum Problem: Error, Equatable, Sendable {
        /// Not a number, or a marker no currency uses.
        case notANumber
        /// A symbol or code of another currency than the feed's.
        case otherCurrency(String)
    }

    /// Symbols and the currencies that write them. A symbol several
    /// currencies share (`$`, `kr`, `¥`) is the feed's own when its currency
    /// is one of them; a symbol none of whose currencies is the feed's is
    /// another currency.
    static let symbols: [String: Set<String>] = [
        "€": ["EUR"], "$": ["USD", "CAD", "AUD", "NZD", "SGD", "HKD", "MXN"], "US$": ["USD"], "£": ["GBP"],
        "¥": ["JPY", "CNY"], "円": ["JPY"], "元": ["CNY"], "₽": ["RUB"], "₴": ["UAH"], "zł": ["PLN"], "kr": ["SEK", "NOK", "DKK", "ISK", "EEK"],
        "kr.": ["DKK", "ISK"], "Kč": ["CZK"], "Ft": ["HUF"], "₹": ["INR"], "₩": ["KRW"], "₺": ["TRY"], "Fr.": ["CHF"], "Fr": ["CHF"],
        "Ls": ["LVL"], "Lt": ["LTL"], "lei": ["RON"], "₪": ["ILS"], "R$": ["BRL"], "C$": ["CAD"], "A$": ["AUD"],
    ]

    /// The amount `text` writes, in a feed whose prices are in `currency`
    /// (nil: no marker allowed). `thousands` is the separator of digit
    /// groups the mapping names, if any: groups after the first have three
    /// digits, and it never stands after the decimal separator.
    public static func amount(_ text: String, decimalSeparator: UInt8, thousands: Unicode.Scalar?, currency: String?,
                              maxFractionDigits: Int = 4) -> ExactDecimal? {
        if case .success(let amount) = parse(text, decimalSeparator: decimalSeparator, thousands: thousands, currency: currency,
                                             maxFractionDigits: maxFractionDigits) {
            return amount
        }
        return nil
    }

    public static func parse(_ text: String, decimalSeparator: UInt8, thousands: Unicode.Scalar?, currency: String?,
                             maxFractionDigits: Int = 4) -> Result<ExactDecimal, Problem> {
        // The common case, a plain number, costs one pass over its bytes.
        if let plain = ExactDecimal.parse(text.utf8, decimalSeparator: decimalSeparator, maxFractionDigits: maxFractionDigits) {
            return .success(plain)
        }
        let scalars = Array(text.unicodeScalars)
        func isNumeric(_ scalar: Unicode.Scalar) -> Bool {
            ("0"..."9").contains(scalar) || scalar.value == UInt32(decimalSeparator) || scalar == thousands
                || (thousands == " " && (scalar == "\u{A0}" || scalar == "\u{202F}")) || (thousands == "'" && scalar == "’")
        }
        guard let first = scalars.firstIndex(where: { ("0"..."9").contains($0) }),
              let last = scalars.lastIndex(where: { ("0"..."9").contains($0) || $0.value == UInt32(decimalSeparator) }) else {
            return .failure(.notANumber)
        }
        var start = first
        // A decimal separator before the first digit is the number's (`.5` is refused by the number's own rules).
        while start > 0, isNumeric(scalars[start - 1]), scalars[start - 1] != " " { start -= 1 }
        let prefix = String(String.UnicodeScalarView(scalars[..<start])).trimmingSpaces
        let suffix = String(String.UnicodeScalarView(scalars[(last + 1)...])).trimmingSpaces
        if !prefix.isEmpty && !suffix.isEmpty { return .failure(.notANumber) }
        let marker = prefix.isEmpty ? suffix : prefix
        if !marker.isEmpty {
            if let problem = check(marker: marker, currency: currency) { return .failure(problem) }
        }
        var number = String.UnicodeScalarView()
        var groupDigits = -1 // digits since the last thousands separator; -1 before any
        var seenDecimal = false
        for scalar in scalars[start...last] {
            if ("0"..."9").contains(scalar) {
                number.append(scalar)
                if groupDigits >= 0 { groupDigits += 1 }
            } else if scalar.value == UInt32(decimalSeparator) {
                if groupDigits >= 0 && groupDigits != 3 { return .failure(.notANumber) }
                seenDecimal = true
                groupDigits = -1
                number.append(scalar)
            } else if isNumeric(scalar), !seenDecimal {
                if groupDigits >= 0 && groupDigits != 3 { return .failure(.notANumber) }
                if groupDigits < 0 && number.isEmpty { return .failure(.notANumber) }
                groupDigits = 0
            } else {
                return .failure(.notANumber)
            }
        }
        if groupDigits >= 0 && groupDigits != 3 { return .failure(.notANumber) }
        guard let amount = ExactDecimal.parse(String(number).utf8, decimalSeparator: decimalSeparator, maxFractionDigits: maxFractionDigits) else {
            return .failure(.notANumber)
        }
        return .success(amount)
    }

    /// nil when `marker` names `currency`; why not otherwise.
    static func check(marker: String, currency: String?) -> Problem? {
        let feed = currency?.uppercased()
        if let code = ISO4217.code(marker) ?? Currency(code: marker)?.rawValue {
            guard let feed else { return .otherCurrency(code) }
            return code == feed ? nil : .otherCurrency(code)
        }
        guard let users = symbols[marker] ?? symbols[marker.lowercased()] else { return .notANumber }
        guard let feed, users.contains(feed) else { return .otherCurrency(marker) }
        return nil
    }
}

extension String {
    /// Without spaces (and no-break spaces) at either end.
    fileprivate var trimmingSpaces: String {
        var scalars = Substring(self).unicodeScalars
        while let first = scalars.first, first == " " || first == "\u{A0}" || first == "\u{202F}" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\u{A0}" || last == "\u{202F}" { scalars.removeLast() }
        return String(scalars)
    }
}
