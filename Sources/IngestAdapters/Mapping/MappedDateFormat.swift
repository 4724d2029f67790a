import Foundation
import IngestCore

/// A date pattern as mappings write it (`dd.MM.yyyy`, `yyyy-MM-dd HH:mm`):
/// the tokens yyyy, MM, dd, HH, mm, ss, and literal characters.
public struct MappedDateFormat: Sendable, Hashable {
    enum Token: Sendable, Hashable {
        case year, month, day, hour, minute, second
        case literal(Character)
    }

    let tokens: [Token]
    public let pattern: String

    public init?(_ pattern: String) {
        var tokens: [Token] = []
        var rest = Substring(pattern)
        let named: [(String, Token)] = [("yyyy", .year), ("MM", .month), ("dd", .day), ("HH", .hour), ("mm", .minute), ("ss", .second)]
        outer: while let first = rest.first {
            for (text, token) in named where rest.hasPrefix(text) {
                tokens.append(token)
                rest = rest.dropFirst(text.count)
                continue outer
            }
            if first.isLetter { return nil } // an unknown token, not a literal
            tokens.append(.literal(first))
            rest = rest.dropFirst()
        }
        guard tokens.contains(.year), tokens.contains(.month), tokens.contains(.day) else { return nil }
        self.tokens = tokens
        self.pattern = pattern
    }

    public func parse(_ text: String, in zone: TimeZone) -> ExportTimestamp? {
        var values: [Token: Int] = [:]
        var rest = Substring(text.trimmed)
        for token in tokens {
            switch token {
            case .literal(let character):
                guard rest.first == character else { return nil }
                rest = rest.dropFirst()
            default:
                let width = token == .year ? 4 : 2
                let digits = rest.prefix(width)
                guard digits.count == width, let value = Int(digits), digits.allSatisfy(\.isASCII) else { return nil }
                values[token] = value
                rest = rest.dropFirst(width)
            }
        }
        guard rest.isEmpty else { return nil }
        return ExportTimestamp.local(
            year: values[.year]!, month: values[.month]!, day: values[.day]!,
            hour: values[.hour] ?? 0, minute: values[.minute] ?? 0, second: values[.second] ?? 0, in: zone)
    }
}
