import Crypto
import Foundation

/// A changeset's SHA-256, as the server sends it and a client checks it.
/// SQLite applies a truncated changeset without a word, and a flipped bit
/// either applies wrong data silently or crashes libsqlite3 3.40's
/// `sqlite3changeset_apply`; only a digest checked before the apply stops
/// both. On the wire it is RFC 9530's `Repr-Digest: sha-256=:BASE64:`;
/// in a script, the lower-case hex of the manifest's digests will do too.
public struct ChangesetDigest: Equatable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]

    public init(of data: Data) {
        bytes = Array(SHA256.hash(data: data))
    }

    /// `sha-256=:…:` as RFC 9530 writes it (the header may list other
    /// algorithms beside it), or 64 hex digits; nil for anything else.
    public init?(parsing text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.count == 64, let bytes = Self.hexBytes(trimmed) {
            self.bytes = bytes
            return
        }
        for member in trimmed.split(separator: ",") {
            let parts = member.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "sha-256" else { continue }
            let value = parts[1]
            guard value.count > 2, value.hasPrefix(":"), value.hasSuffix(":"),
                  let data = Data(base64Encoded: String(value.dropFirst().dropLast())), data.count == 32 else { return nil }
            bytes = Array(data)
            return
        }
        return nil
    }

    /// The value of a `Repr-Digest` header field.
    public var header: String { "sha-256=:\(Data(bytes).base64EncodedString()):" }

    public var hex: String { bytes.map { String(format: "%02x", $0) }.joined() }

    public var description: String { hex }

    private static func hexBytes(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        var pending: UInt8?
        for scalar in text.utf8 {
            let value: UInt8
            switch scalar {
            case 0x30...0x39: value = scalar - 0x30
            case 0x61...0x66: value = scalar - 0x61 + 10
            case 0x41...0x46: value = scalar - 0x41 + 10
            default: return nil
            }
            if let high = pending { bytes.append(high << 4 | value); pending = nil } else { pending = value }
        }
        return pending == nil ? bytes : nil
    }
}
