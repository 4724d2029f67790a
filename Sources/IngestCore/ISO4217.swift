import Foundation

/// ISO 4217 currency codes and their minor units (SNAPSHOT.md, money in
/// other currencies): every `*_cents` column holds the snapshot currency's
/// minor units, pence for GBP, öre for SEK, yen for JPY.
///
/// Which codes exist comes from Foundation (ICU's list); the exponents are
/// ISO 4217's own table, written here because Foundation on Linux answers
/// 2 for every currency (`NumberFormatter.maximumFractionDigits` says 2 for
/// JPY and KWD).
public enum ISO4217 {
    /// Currencies whose minor unit is not the hundredth.
    static let exponents: [String: Int] = [
        // No minor unit in use.
        "BIF": 0, "CLP": 0, "DJF": 0, "GNF": 0, "ISK": 0, "JPY": 0, "KMF": 0, "KRW": 0, "PYG": 0,
        "RWF": 0, "UGX": 0, "UYI": 0, "VND": 0, "VUV": 0, "XAF": 0, "XOF": 0, "XPF": 0,
        // Thousandths.
        "BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3,
        // Ten-thousandths (units of account).
        "CLF": 4, "UYW": 4,
    ]

    private static let codes: Set<String> = Set(Locale.Currency.isoCurrencies.map(\.identifier))

    /// The code in capitals when ISO 4217 knows it (trimmed, any case); nil otherwise.
    public static func code(_ text: String) -> String? {
        let code = text.trimmed.uppercased()
        guard code.utf8.count == 3, code.utf8.allSatisfy({ $0 >= 65 && $0 <= 90 }), codes.contains(code) else { return nil }
        return code
    }

    /// Decimal places of the currency's minor unit (2 unless the table says otherwise).
    public static func minorUnits(_ code: String) -> Int {
        exponents[code] ?? 2
    }
}
