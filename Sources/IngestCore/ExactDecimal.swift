/// A decimal number exactly as a feed wrote it: `units × 10^-scale`.
///
/// Money never passes through a binary floating-point type: text is parsed
/// straight into this, multiplied and divided as integers, and rounded once
/// by `HalfUpRounding` at the end of a computation.
public struct ExactDecimal: Sendable, Hashable, CustomStringConvertible {
    public let units: Int128
    public let scale: Int

    /// Feeds never need more; longer digit strings are rejected as text, not trapped on.
    public static let maxDigits = 24

    public init(units: Int128, scale: Int) {
        self.units = units
        self.scale = scale
    }

    public init(_ integer: Int) {
        self.init(units: Int128(integer), scale: 0)
    }

    /// Parses `[-]digits[<separator>digits]`. Nothing else is accepted: no
    /// sign prefix `+`, no exponent, no thousands separators, no spaces.
    /// - Parameters:
    ///   - maxFractionDigits: more fraction digits than this is an error.
    ///   - allowNegative: whether a leading `-` is allowed.
    ///
    /// Inlinable so that adapters get it specialized for their byte buffers;
    /// called generically across the module boundary it went through
    /// witness tables for every byte.
    @inlinable
    public static func parse(
        _ text: some Collection<UInt8>,
        decimalSeparator: UInt8,
        maxFractionDigits: Int = 6,
        allowNegative: Bool = false
    ) -> ExactDecimal? {
        var units: Int128 = 0
        var digits = 0
        var fractionDigits = 0
        var seenSeparator = false
        var negative = false
        var index = 0
        var intDigits = 0
        for byte in text {
            defer { index += 1 }
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                digits += 1
                if seenSeparator { fractionDigits += 1 } else { intDigits += 1 }
                if digits > maxDigits || fractionDigits > maxFractionDigits { return nil }
                units = units * 10 + Int128(byte &- UInt8(ascii: "0"))
            case decimalSeparator:
                if seenSeparator || intDigits == 0 { return nil }
                seenSeparator = true
            case UInt8(ascii: "-") where index == 0 && allowNegative:
                negative = true
            default:
                return nil
            }
        }
        if intDigits == 0 || (seenSeparator && fractionDigits == 0) { return nil }
        return ExactDecimal(units: negative ? -units : units, scale: fractionDigits)
    }

    /// The separator is a scalar, not a Character: `Character.asciiValue`
    /// took more instructions than the parse itself.
    public static func parse(_ text: String, decimalSeparator: Unicode.Scalar = ".", maxFractionDigits: Int = 6, allowNegative: Bool = false) -> ExactDecimal? {
        guard decimalSeparator.isASCII else { return nil }
        let separator = UInt8(decimalSeparator.value)
        // The contiguous bytes, not the generic UTF-8 view: a price is parsed for every offer.
        var text = text
        return text.withUTF8 { parse($0, decimalSeparator: separator, maxFractionDigits: maxFractionDigits, allowNegative: allowNegative) }
    }

    public var isNegative: Bool { units < 0 }

    public var description: String {
        guard scale > 0 else { return String(units) }
        let magnitude = String(units.magnitude)
        let padded = String(repeating: "0", count: max(0, scale + 1 - magnitude.count)) + magnitude
        let split = padded.index(padded.endIndex, offsetBy: -scale)
        return (units < 0 ? "-" : "") + padded[..<split] + "." + padded[split...]
    }
}
