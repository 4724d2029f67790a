/// The URLs a feed may hand to the read services (a leaflet, an image): the
/// apps open them, so only `http` and `https` with a host, no whitespace or
/// control characters (`file:`, `javascript:` and the like are refused).
enum WebURL {
    static func isValid(_ text: String) -> Bool {
        let lower = text.lowercased()
        guard let scheme = ["https://", "http://"].first(where: lower.hasPrefix) else { return false }
        let rest = lower.dropFirst(scheme.count)
        guard let first = rest.first, first != "/", first != ":", first != "@" else { return false }
        return !text.unicodeScalars.contains { $0.value <= 0x20 || $0.value == 0x7F }
    }
}
