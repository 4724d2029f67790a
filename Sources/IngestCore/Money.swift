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
        let rate = currency.unitsPerEuro
        // amount / rate * 100 = units·10^rate.scale·100 / (10^amount.scale · rate.units)
        let numerator = try product(amount.units, Int128.powerOfTen(rate.scale), 100)
        let denominator = try product(Int128.powerOfTen(amount.scale), rate.units)
        return try checked(HalfUpRounding.divide(numerator, by: denominator))
    }

    /// A price given without VAT plus its VAT rate in percent (possibly
    /// fractional), as euro cents of the shelf price: `net × (1 + rate/100)`.
    public static func shelfCents(net: ExactDecimal, vatPercent: ExactDecimal, in currency: Currency) throws(MoneyError) -> Int64 {
        guard !net.isNegative, !vatPercent.isNegative else { throw .negative }
        let rate = currency.unitsPerEuro
        // (net.units/10^ns) · (10^vs·100 + vat.units)/(10^vs·100) / (rate.units/10^rs) · 100
        let vatFactor = try product(Int128.powerOfTen(vatPercent.scale), 100) + vatPercent.units
        let numerator = try product(net.units, vatFactor, Int128.powerOfTen(rate.scale))
        let denominator = try product(Int128.powerOfTen(net.scale), Int128.powerOfTen(vatPercent.scale), rate.units)
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
