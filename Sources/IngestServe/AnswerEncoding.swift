import CompressNIO
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// What READ_API.md's "For the people who run it" asks of every answer of
/// a snapshot: an `ETag` from the snapshot version and the query, so a
/// client asking again gets `304 Not Modified` until the next publish;
/// `Cache-Control: public, max-age=60`; and gzip when the client accepts
/// it. (`HEAD` comes from Hummingbird's router, which answers it with the
/// `GET` handler's headers and no body.)
struct AnswerEncoding {
    static let versionHeader = HTTPField.Name("X-Snapshot-Version")!

    /// Answers shorter than this go as they are: gzip's header and the
    /// CPU would cost more than the bytes saved.
    static let smallestCompressed = 1024

    /// A JSON answer (`status` 200 answers of a snapshot are cacheable).
    /// `moment`: for an answer that says what is open (`on`, `oh`), the minute it is about, so a
    /// client's cached copy is not taken for current once a pharmacy opens or closes.
    static func json(_ request: Request, status: HTTPResponse.Status, body: Data, version: String?, moment: String? = nil) -> Response {
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if let version { headers[Self.versionHeader] = version }
        guard status == .ok, let version else {
            headers[.cacheControl] = "no-store"
            return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
        }
        let tag = entityTag(version: version, query: (request.uri.query ?? "") + (moment.map { "\u{0}" + $0 } ?? ""))
        headers[.eTag] = tag
        headers[.cacheControl] = "public, max-age=60"
        headers[.vary] = "Accept-Encoding"
        if let asked = request.headers[.ifNoneMatch], matches(asked, tag) {
            return Response(status: .notModified, headers: headers)
        }
        var buffer = ByteBuffer(bytes: body)
        if body.count >= smallestCompressed, acceptsGzip(request.headers[.acceptEncoding]),
           let compressed = try? buffer.compress(with: .gzip()) { // zlib fails only on memory; the plain answer is as good
            headers[.contentEncoding] = "gzip"
            return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: compressed))
        }
        buffer.moveReaderIndex(to: 0)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: buffer))
    }

    /// Weak: the same answer gzipped or not is the same for a cache (RFC 9110 §8.8.1).
    /// The query's FNV-1a hash keeps the tag short whatever the client sent.
    static func entityTag(version: String, query: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in query.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return "W/\"\(version)-\(String(repeating: "0", count: 16 - hex.count))\(hex)\""
    }

    /// `If-None-Match`: `*`, or a list of tags compared weakly.
    static func matches(_ field: String, _ tag: String) -> Bool {
        func opaque(_ tag: Substring) -> Substring {
            let trimmed = tag.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed()
            let text = Substring(trimmed)
            return text.hasPrefix("W/") ? text.dropFirst(2) : text
        }
        if field.trimmingCharacters(in: .whitespaces) == "*" { return true }
        let own = opaque(Substring(tag))
        return field.split(separator: ",").contains { opaque($0) == own }
    }

    /// `Accept-Encoding` names gzip (or `*`) with a weight above zero.
    static func acceptsGzip(_ field: String?) -> Bool {
        guard let field else { return false }
        for member in field.split(separator: ",") {
            let parts = member.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let coding = parts.first, coding == "gzip" || coding == "x-gzip" || coding == "*" else { continue }
            let weight = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return weight > 0
        }
        return false
    }
}
