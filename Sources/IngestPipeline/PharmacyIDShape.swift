import IngestAdapters
import IngestCore

/// A pharmacy id the registry does not know, shaped like another column's
/// value: a price (`12.50`, `7,90`), a GTIN (12 to 14 digits with a valid
/// check digit), a package code of the register or an item code `current`
/// holds (an aptcode). Such an id comes from a
/// file whose columns are swapped or shifted, not from a new pharmacy: a
/// chain export with columns swapped half-way once published 176 phantom
/// pharmacies named after item codes. It is rejected, never loaded.
enum PharmacyIDShape {
    /// Why `id` is no pharmacy id; nil when it may be one.
    static func problem(_ id: String, packageCodes: Set<String> = [], aptcodes: Set<String> = []) -> FeedFailure? {
        let what: String?
        if isPrice(id) {
            what = "a price"
        } else if id.utf8.count >= 12, id.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), case .success = GTIN.normalize(id) {
            what = "a GTIN"
        } else if packageCodes.contains(id) {
            what = "a package code of the register"
        } else if aptcodes.contains(id) || aptcodes.contains(id.uppercasedCode) {
            what = "an item code (aptcode)"
        } else {
            what = nil
        }
        return what.map {
            FeedFailure(reason: .notAPharmacyID,
                        message: "pharmacy id '\(id)' is not in the registry and looks like \($0): a column swapped or shifted, not a new pharmacy")
        }
    }

    /// Digits, one `.` or `,`, one to four digits after it.
    static func isPrice(_ text: String) -> Bool {
        let parts = text.split(separator: text.contains(",") ? "," : ".", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, (1...4).contains(parts[1].count) else { return false }
        return parts.allSatisfy { $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }
    }
}

extension RejectReason {
    /// An unregistered pharmacy id shaped like a price, a GTIN, a package code or an item code (FEEDS.md §12).
    public static let notAPharmacyID = RejectReason(rawValue: "not_a_pharmacy_id")
}
