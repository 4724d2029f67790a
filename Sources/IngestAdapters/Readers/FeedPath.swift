import Glibc
import IngestCore

/// How a feed's file is named and opened. A file system name is bytes, not
/// text: a pharmacy's system may write a cp1257 `Õ` (0xD5) into a file
/// name, which no Swift `String` holds. Such a file is held open from the
/// moment it is listed and reached through `/proc/self/fd/N`; its name is
/// shown escaped (`\xD5`), as are newlines and control characters in any
/// name, in every report.
public enum FeedPath {
    /// The one way adapters open a feed for reading: never through a symbolic
    /// link (a feed could point anywhere on the machine), except the
    /// descriptor link of a file held open because its name is not UTF-8.
    public static func openForReading(_ path: String) throws(FeedFailure) -> Int32 {
        let flags = path.hasPrefix(heldPrefix) ? O_RDONLY | O_CLOEXEC : O_RDONLY | O_NOFOLLOW | O_CLOEXEC
        let descriptor = open(path, flags)
        guard descriptor >= 0 else { throw FeedFailure(reason: .unreadable, message: "cannot open: \(String(cString: strerror(errno)))") }
        return descriptor
    }

    static let heldPrefix = "/proc/self/fd/"

    /// A name for people and JSON: valid UTF-8 stays as it is, but for
    /// control characters (`\n`, `\t`, `\u{1B}`); a byte that is not UTF-8
    /// becomes `\xNN`; a backslash is doubled, so no two names look alike.
    public static func displayName(_ bytes: [UInt8]) -> String {
        var result = ""
        var index = 0
        while index < bytes.count {
            let length = sequenceLength(bytes, at: index)
            if length == 0 {
                result += "\\x" + String(bytes[index], radix: 16, uppercase: true).leftPadded(to: 2)
                index += 1
                continue
            }
            let scalarText = String(decoding: bytes[index..<index + length], as: UTF8.self)
            for scalar in scalarText.unicodeScalars {
                switch scalar {
                case "\\": result += "\\\\"
                case "\n": result += "\\n"
                case "\r": result += "\\r"
                case "\t": result += "\\t"
                case _ where scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value):
                    result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                default: result.unicodeScalars.append(scalar)
                }
            }
            index += length
        }
        return result
    }

    /// The length of the valid UTF-8 sequence at `index`, 0 when there is none.
    static func sequenceLength(_ bytes: [UInt8], at index: Int) -> Int {
        let lead = bytes[index]
        let length: Int
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF4: length = 4
        default: return 0
        }
        guard index + length <= bytes.count else { return 0 }
        for offset in 1..<length where bytes[index + offset] & 0xC0 != 0x80 { return 0 }
        // Overlong forms and surrogates are not UTF-8 either.
        let second = bytes[index + 1]
        if lead == 0xE0, second < 0xA0 { return 0 }
        if lead == 0xED, second >= 0xA0 { return 0 }
        if lead == 0xF0, second < 0x90 { return 0 }
        if lead == 0xF4, second >= 0x90 { return 0 }
        return length
    }
}

/// A file held open for the run because its name cannot be a path string.
public final class HeldFile: Sendable {
    public let descriptor: Int32
    public init(descriptor: Int32) { self.descriptor = descriptor }
    deinit { close(descriptor) }
    public var path: String { FeedPath.heldPrefix + String(descriptor) }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
