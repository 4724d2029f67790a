/// Why an amount could not become euro cents.
public enum MoneyError: Error, Sendable, Equatable {
    /// The result does not fit in the range a price may have.
    case outOfRange
    case negative
}

/// Euro cents from exact decimals: the only place money is converted or
/// rounded. Each function rounds once, at its end.
public enum Money {
    /// No shelf price reaches a million euro; anything above is a broken feed,
    /// and the cap keeps every later sum far inside Int64.
    public static let maxCents: Int64 = 100_000_000_00

    /// `amount` in `currency`, as euro cents rounded half-up.
    public static func cents(_ amount: ExactDecimal, in currency: Currency) throws(MoneyError) -> Int64 {
        try minorUnits(amount, rate: currency.unitsPerEuro, exponent: 2)
    }

    /// A price given without VAT plus its VAT rate in percent (possibly
    /// fractional), as euro cents of the shelf price: `net × (1 + rate/100)`.
    public static func shelfCents(net: ExactDecimal, vatPercent: ExactDecimal, in currency: Currency) throws(MoneyError) -> Int64 {
        try shelfMinorUnits(net: net, vatPercent: vatPercent, rate: currency.unitsPerEuro, exponent: 2)
    }

    /// The currency a price written in `code` is kept in: the euro for the
    /// currencies that convert to it at a fixed statutory rate (FEEDS.md §3),
    /// the currency itself for any other ISO 4217 code (never converted at
    /// a market rate); nil for a code ISO 4217 does not know.
    public static func keptCurrency(of code: String) -> String? {
        if Currency(code: code) != nil { return Currency.eur.rawValue }
        return ISO4217.code(code)
    }

    /// `amount` written in `code`, in minor units of `keptCurrency(of: code)`, rounded half-up.
    public static func minorUnits(_ amount: ExactDecimal, writtenIn code: String) throws(MoneyError) -> Int64 {
        if let legacy = Currency(code: code) { return try cents(amount, in: legacy) }
        return try minorUnits(amount, rate: ExactDecimal(units: 1, scale: 0), exponent: ISO4217.minorUnits(code.trimmed.uppercased()))
    }

    /// The shelf price of a net `amount` written in `code` plus VAT, in minor units of `keptCurrency(of: code)`.
    public static func shelfMinorUnits(net: ExactDecimal, vatPercent: ExactDecimal, writtenIn code: String) throws(MoneyError) -> Int64 {
        if let legacy = Currency(code: code) { return try shelfCents(net: net, vatPercent: vatPercent, in: legacy) }
        return try shelfMinorUnits(net: net, vatPercent: vatPercent, rate: ExactDecimal(units: 1, scale: 0),
                                   exponent: ISO4217.minorUnits(code.trimmed.uppercased()))
    }

    /// amount / rate · 10^exponent = units·10^rate.scale·10^exponent / (10^amount.scale · rate.units)
    private static func minorUnits(_ amount: ExactDecimal, rate: ExactDecimal, exponent: Int) throws(MoneyError) -> Int64 {
        let numerator = try product(amount.units, Int128.powerOfTen(rate.scale), Int128.powerOfTen(exponent))
        let denominator = try product(Int128.powerOfTen(amount.scale), rate.units)
        return try checked(HalfUpRounding.divide(numerator, by: denominator))
    }

    private static func shelfMinorUnits(net: ExactDecimal, vatPercent: ExactDecimal, rate: ExactDecimal, exponent: Int) throws(MoneyError) -> Int64 {
        guard !net.isNegative, !vatPercent.isNegative else { throw .negative }
        // (net.units/10^ns) · (10^vs·100 + vat.units)/(10^vs·100) / (rate.units/10^rs) · 10^exponent
        let vatFactor = try product(Int128.powerOfTen(vatPercent.scale), 100) + vatPercent.units
        let numerator = try product(product(net.units, vatFactor, Int128.powerOfTen(rate.scale)), Int128.powerOfTen(exponent))
        let denominator = try product(Int128.powerOfTen(net.scale), Int128.powerOfTen(vatPercent.scale), product(rate.units, 100))
        return try checked(HalfUpRounding.divide(numerator, by: denominator))
    }

    /// Multiplies without trapping: hostile feeds write 30-digit prices.
    @inline(__always)
    private static func product(_ a: Int128, _ b: Int128) throws(MoneyError) -> Int128 {
        let (value, overflow) = a.multipliedReportingOverflow(by: b)
        if overflow { throw .outOfRange }
        return value
    }

    @inline(__always)
    private static func product(_ a: Int128, _ b: Int128, _ c: Int128) throws(MoneyError) -> Int128 {
        try product(product(a, b), c)
    }

    private static func checked(_ cents: Int128) throws(MoneyError) -> Int64 {
        guard cents >= 0 else { throw .negative }
        guard cents <= Int128(maxCents) else { throw .outOfRange }
        return Int64(cents)
    }

    /// `12345` → `"123.45"`, for reports and messages.
    public static func format(_ cents: Int64) -> String {
        ExactDecimal(units: Int128(cents), scale: 2).description
    }
}
