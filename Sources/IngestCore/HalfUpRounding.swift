/// The project's one rounding rule: half-up, i.e. halves go away from zero.
///
/// Every money computation ends in exactly one call to this; FEEDS.md says so
/// for conversions, VAT and the fund's share alike.
public enum HalfUpRounding {
    /// `numerator / denominator` rounded half away from zero.
    /// - Precondition: `denominator > 0`.
    public static func divide(_ numerator: Int128, by denominator: Int128) -> Int128 {
        precondition(denominator > 0, "denominator must be positive")
        let magnitude = numerator.magnitude
        let d = denominator.magnitude
        let quotient = magnitude / d
        let remainder = magnitude % d
        let rounded = remainder * 2 >= d ? quotient + 1 : quotient
        return numerator < 0 ? -Int128(rounded) : Int128(rounded)
    }
}

extension Int128 {
    /// `10^exponent`, for the small exponents decimals use.
    static func powerOfTen(_ exponent: Int) -> Int128 {
        var result: Int128 = 1
        for _ in 0..<exponent { result *= 10 }
        return result
    }
}
