import Foundation
import IngestSnapshot
import IngestTestSupport
import Testing

/// READ_API.md Version 3, "For web pages": `--cors-origin` answers a
/// browser's preflight and marks answers for the origins it names (or any,
/// with `*`); none by default. And a form's `+` reaches the search as a space.
@Suite(.serialized) struct CrossOriginTests {
    static let preflight = ["Origin: https://apteegid.example.ee", "Access-Control-Request-Method: GET"]

    @Test func originsNamedAreAllowedAndNoneByDefault() async throws {
        let temporary = TemporaryDirectory()
        try ServeEndToEndTests.generate(temporary, "n1")
        try ServeEndToEndTests.importNight(temporary, "n1", day: "2025-11-21")
        let named = try ServeEndToEndTests.Server(snapshots: "\(temporary.path)/s", log: "\(temporary.path)/named.log",
                                                  options: ["--cors-origin", "https://apteegid.example.ee", "--cors-origin", "https://kaart.example.ee"])
        let answers = try ServeOperationsTests.raw(named.base, [
            ServeOperationsTests.get("/?q=a", Self.preflight, method: "OPTIONS"),
            ServeOperationsTests.get("/?q=a", ["Origin: https://apteegid.example.ee"]),
            ServeOperationsTests.get("/?q=a", ["Origin: https://other.example.com"]),
            ServeOperationsTests.get("/?q=a", ["Origin: https://other.example.com", "Access-Control-Request-Method: GET"], method: "OPTIONS"),
        ])
        #expect(answers.map(\.status) == [204, 200, 200, 405])
        #expect(answers[0].headers["access-control-allow-origin"] == "https://apteegid.example.ee")
        #expect(answers[0].headers["access-control-allow-methods"] == "GET, HEAD" && answers[0].headers["vary"] == "Origin")
        #expect(answers[1].headers["access-control-allow-origin"] == "https://apteegid.example.ee")
        #expect(answers[1].headers["access-control-expose-headers"] == "ETag, X-Snapshot-Version, Repr-Digest")
        #expect(answers[1].headers["vary"]?.contains("Origin") == true)
        #expect(answers[2].headers["access-control-allow-origin"] == nil, "an origin not named gets no header")
        let anyOrigin = try ServeEndToEndTests.Server(snapshots: "\(temporary.path)/s", log: "\(temporary.path)/any.log", options: ["--cors-origin", "*"])
        let open = try ServeOperationsTests.raw(anyOrigin.base, [ServeOperationsTests.get("/?q=p", ["Origin: https://other.example.com"])])[0]
        #expect(open.status == 200 && open.headers["access-control-allow-origin"] == "*")
        let closed = try ServeEndToEndTests.Server(snapshots: "\(temporary.path)/s", log: "\(temporary.path)/none.log")
        let plain = try ServeOperationsTests.raw(closed.base, [
            ServeOperationsTests.get("/?q=a", ["Origin: https://apteegid.example.ee"]),
            ServeOperationsTests.get("/?q=a", Self.preflight, method: "OPTIONS"),
            // A form's `+` is a space: the same answer as `%20`.
            ServeOperationsTests.get("/?q=i&search=a+b"), ServeOperationsTests.get("/?q=i&search=a%20b"), ServeOperationsTests.get("/?q=i&search=a%2Bb"),
        ])
        #expect(plain[0].headers["access-control-allow-origin"] == nil && plain[1].status == 405, "no CORS by default")
        #expect(plain[2].status == 200 && plain[2].body == plain[3].body && plain[4].body == plain[3].body,
                "a%2Bb is the words a and b too: + separates like any punctuation")
        let refused = try CommandRunner.serve(["--cors-origin", "apteegid.example.ee"])
        #expect(refused.status == 64 && refused.stderr.hasPrefix(
            "Error: --cors-origin: \"apteegid.example.ee\" is not an origin such as https://example.ee (scheme and host, no path) or *\n"))
    }
}
