import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import IngestSnapshot
import IngestTestSupport
import Testing

/// READ_API.md, "For the people who run it": caching headers, gzip, HEAD,
/// 405 for other methods, JSON bodies for every refusal (the decoder's
/// too), nothing of SQL or paths in a 500, an access log line and metrics
/// per request, connections closed when idle, and changesets that carry
/// their digest and are refused when cut or altered.
@Suite(.serialized) struct ServeOperationsTests {
    /// One raw HTTP exchange per request, each on its own connection: what
    /// a client sends byte for byte (URLSession would normalise it).
    struct RawAnswer: Decodable {
        var status: Int
        var headers: [String: String]
        var body: String
        var gzipped: Bool
    }

    static func raw(_ base: String, _ requests: [String]) throws -> [RawAnswer] {
        let address = base.dropFirst("http://".count).split(separator: ":")
        let script = """
            import gzip, json, socket, sys
            results = []
            for raw in json.loads(sys.argv[3]):
                s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=20)
                s.sendall(raw.encode('latin-1'))
                data = b''
                while True:
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                s.close()
                head, _, body = data.partition(b'\\r\\n\\r\\n')
                lines = head.decode('latin-1').split('\\r\\n')
                words = lines[0].split()
                headers = {k.strip().lower(): v.strip() for k, v in (l.split(':', 1) for l in lines[1:] if ':' in l)}
                gzipped = headers.get('content-encoding') == 'gzip'
                if gzipped:
                    body = gzip.decompress(body)
                results.append({'status': int(words[1]) if len(words) > 1 else 0, 'headers': headers,
                                'body': body.decode('utf-8', 'replace'), 'gzipped': gzipped})
            print(json.dumps(results))
            """
        let encoded = String(decoding: try JSONSerialization.data(withJSONObject: requests), as: UTF8.self)
        guard let result = try CommandRunner.python(["-c", script, String(address[0]), String(address[1]), encoded]), result.status == 0 else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "the raw client failed (make test-tools)"])
        }
        return try JSONDecoder().decode([RawAnswer].self, from: Data(result.stdout.utf8))
    }

    static func get(_ target: String, _ headers: [String] = [], method: String = "GET") -> String {
        "\(method) \(target) HTTP/1.1\r\nHost: test\r\nConnection: close\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n"
    }

    @Test func answersAreCachedCompressedLoggedAndCounted() async throws {
        let temporary = TemporaryDirectory()
        try ServeEndToEndTests.generate(temporary, "n1")
        try ServeEndToEndTests.importNight(temporary, "n1", day: "2025-11-21")
        let version = try #require(SnapshotDirectory(path: "\(temporary.path)/s").currentVersion())
        let server = try ServeEndToEndTests.Server(snapshots: "\(temporary.path)/s", log: "\(temporary.path)/serve.log")
        let first = try Self.raw(server.base, [Self.get("/?q=a")])[0]
        let tag = try #require(first.headers["etag"])
        #expect(first.status == 200 && tag.hasPrefix("W/\"\(version)-") && first.headers["cache-control"] == "public, max-age=60")
        #expect(first.headers["x-snapshot-version"] == version && first.headers["vary"] == "Accept-Encoding")
        let answers = try Self.raw(server.base, [
            Self.get("/?q=a", ["If-None-Match: \(tag)"]),
            Self.get("/?q=a", ["If-None-Match: \"other\", \(tag.dropFirst(2))"]),
            Self.get("/?q=a&atc=A", ["If-None-Match: \(tag)"]),
            Self.get("/?q=p"),
            Self.get("/?q=p", ["Accept-Encoding: br, gzip;q=0.5"]),
            Self.get("/?q=p", ["Accept-Encoding: gzip;q=0"]),
            Self.get("/?q=p", method: "HEAD"),
            Self.get("/?q=p", method: "TRACE"),
            Self.get("/?q=" + String(repeating: "a", count: 100_000)),
            "GET /?q=p\u{0}x HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n",
            Self.get("/?q=%FF%FE"),
            Self.get("/?q=p%00"),
            Self.get("/?q=i"),
            Self.get("/nothing"),
        ])
        #expect(answers[0].status == 304 && answers[0].body == "" && answers[0].headers["etag"] == tag)
        #expect(answers[1].status == 304, "a weak match in a list")
        #expect(answers[2].status == 200, "another query, another tag")
        let plain = answers[3]
        #expect(!plain.gzipped && plain.body.utf8.count > 1024)
        #expect(answers[4].gzipped && answers[4].body == plain.body)
        #expect(!answers[5].gzipped, "q=0 refuses gzip")
        #expect(answers[6].status == 200 && answers[6].body == "" && answers[6].headers["content-length"] == String(plain.body.utf8.count))
        #expect(answers[7].status == 405 && answers[7].headers["allow"] == "GET, HEAD"
                && answers[7].body == #"{"error":"method TRACE is not served: GET or HEAD"}"#)
        // Every refusal is JSON with a reason, from the decoder or from the query.
        for (index, refused) in answers.enumerated().dropFirst(8).dropLast() {
            let error = (try? JSONSerialization.jsonObject(with: Data(refused.body.utf8))) as? [String: String]
            #expect(refused.status == 400 && error?["error"]?.isEmpty == false, "request \(index): \(refused.status) \(refused.body.prefix(200))")
        }
        #expect(answers[11].body == #"{"error":"unknown q=\"p\\0\": expected p, i, ip, id, a, h, eq, dx, g or changes"}"#)

        #expect(answers[13].status == 404 && answers[13].body.hasPrefix(#"{"error":"no such path"#))

        // One JSON line per request that reached the router; the counts in /metrics.
        let metrics = try Self.raw(server.base, [Self.get("/metrics")])[0]
        let lines = try String(contentsOfFile: server.accessLog, encoding: .utf8).split(separator: "\n")
        let records = lines.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
        #expect(records.count == lines.count && records.count >= 12)
        let notModified = records.filter { $0["query"] as? String == "q=a" && $0["status"] as? Int == 304 }
        #expect(notModified.count == 2 && notModified[0]["method"] as? String == "GET" && notModified[0]["bytes"] as? Int == 0)
        #expect(records.allSatisfy { ($0["us"] as? Int ?? -1) >= 0 && $0["time"] is String && $0["path"] is String })
        #expect(metrics.body.contains("ingest_serve_requests_total{query=\"a\",status=\"304\"} 2"))
        #expect(metrics.body.contains("ingest_serve_requests_total{query=\"p\",status=\"200\"} 4"))
        #expect(metrics.body.contains("ingest_serve_requests_total{query=\"other\",status=\"400\"}"))
        #expect(metrics.body.contains("ingest_serve_snapshot_age_seconds "))
        #expect(metrics.body.contains("ingest_serve_request_seconds_bucket{query=\"a\",le=\"0.01\"}"))
    }

    /// A request that fails inside says so without SQL or paths; the log has them.
    @Test func aServerErrorTellsTheClientNothingOfTheServer() async throws {
        let temporary = TemporaryDirectory()
        try ServeEndToEndTests.generate(temporary, "n1")
        try ServeEndToEndTests.importNight(temporary, "n1", day: "2025-11-21")
        let directory = SnapshotDirectory(path: "\(temporary.path)/s")
        let path = directory.snapshotPath(try #require(directory.currentVersion()))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let database = try SQLiteDatabase(path: path)
        try database.execute("DROP TABLE price_history")
        try database.close()
        let server = try ServeEndToEndTests.Server(snapshots: directory.path, log: "\(temporary.path)/serve.log")
        let answer = try Self.raw(server.base, [Self.get("/?q=h&aptcode=MM0000001&client_id=10000")])[0]
        #expect(answer.status == 500)
        let reason = ((try? JSONSerialization.jsonObject(with: Data(answer.body.utf8))) as? [String: String])?["error"] ?? ""
        #expect(reason.hasPrefix("the server could not answer (reference ") && !reason.contains("price_history") && !reason.contains("/"))
        let reference = String(reason.dropFirst("the server could not answer (reference ".count).prefix(8))
        let log = try String(contentsOfFile: server.log, encoding: .utf8)
        #expect(log.contains("reference=\(reference)") && log.contains("no such table: price_history"))
    }

    /// A connection that sends nothing is closed after the header timeout.
    @Test func anIdleConnectionIsClosed() async throws {
        let temporary = TemporaryDirectory()
        let server = try ServeEndToEndTests.Server(snapshots: "\(temporary.path)/none", log: "\(temporary.path)/serve.log",
                                                   options: ["--header-timeout", "1", "--idle-timeout", "1"])
        let address = server.base.dropFirst("http://".count).split(separator: ":")
        let result = try #require(try CommandRunner.python(["-c", """
            import socket, sys, time
            s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=20)
            start = time.monotonic()
            closed = s.recv(1) == b''
            print(closed, time.monotonic() - start >= 0.9)
            """, String(address[0]), String(address[1])]))
        // Closed, and not before the timeout; how long after it is a busy machine's business.
        #expect(result.stdout == "True True\n", "\(result.stderr)")
    }

    /// Right after a publish four clients on yesterday's version ask for
    /// the changeset at once: the server reads the night's own file once
    /// (single flight: one build, whatever the number of clients), every
    /// client gets the same bytes with their digest, and those bytes are the
    /// file the night wrote, as its manifest describes it. Queries go on
    /// meanwhile. (Before schema 5 the server diffed the two files here, for
    /// 12–20 s on the national snapshot; nothing of that is left to wait for.)
    @Test func clientsAskingTogetherGetTheNightsOwnChangesetReadOnce() async throws {
        let temporary = TemporaryDirectory()
        try ServeEndToEndTests.generate(temporary, "n1")
        try ServeEndToEndTests.generate(temporary, "n2", ["--days-later", "1", "--price-change-rate", "0.3"])
        try ServeEndToEndTests.importNight(temporary, "n1", day: "2025-11-21")
        let directory = SnapshotDirectory(path: "\(temporary.path)/s")
        let first = try #require(directory.currentVersion())
        let server = try ServeEndToEndTests.Server(snapshots: directory.path, log: "\(temporary.path)/serve.log")
        let base = server.base
        func gauges() throws -> (inProgress: Double, built: Double) {
            let metrics = try PrometheusTextfile(try Self.raw(base, [Self.get("/metrics")])[0].body)
            return (metrics["ingest_serve_changeset_builds_in_progress"] ?? -1, metrics["ingest_serve_changeset_builds_total"] ?? -1)
        }

        try ServeEndToEndTests.importNight(temporary, "n2", day: "2025-11-22")
        let second = try #require(directory.currentVersion())
        try await Polling.until("the server to open night 2") { try await ServeEndToEndTests.get("\(base)/health").version == second }
        let clients = Task {
            try await withThrowingTaskGroup(of: ServeEndToEndTests.Answer.self) { group in
                for _ in 0..<4 { group.addTask { try await ServeEndToEndTests.get("\(base)/?q=changes&since=\(first)", timeout: 900) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        let answer = try await ServeEndToEndTests.get("\(base)/?q=a")
        #expect(answer.status == 200 && answer.version == second)
        let changes = try await clients.value
        #expect(changes.count == 4 && changes.allSatisfy { $0.status == 200 && $0.digest == changes[0].digest && $0.body == changes[0].body })
        #expect(try gauges() == (inProgress: 0, built: 1), "made once for all (single flight), and no longer under way")
        let manifest = try directory.readManifest(second)
        let nightly = try #require(manifest.changeset)
        #expect(nightly.from == first)
        let file = try Data(contentsOf: URL(fileURLWithPath: directory.changesetPath(second)))
        #expect(changes[0].body == file)
        #expect(ChangesetDigest(of: file).hex == nightly.sha256)
    }

    /// schemathesis (PyPI, in the test tools' venv) against `/openapi.json`:
    /// no server error, no answer outside its schema or its documented
    /// statuses, types and headers, every schema-violating request refused
    /// (an empty `latitude=`, a `tier` off the list, a `latitude` that means
    /// nothing to the query but is no number), and TRACE and the other
    /// methods 405. A fixed seed, so a failure can be replayed.
    @Test func schemathesisFindsTheDocumentAndTheServerAgree() async throws {
        let temporary = TemporaryDirectory()
        try ServeEndToEndTests.generate(temporary, "n1")
        try ServeEndToEndTests.importNight(temporary, "n1", day: "2025-11-21")
        let server = try ServeEndToEndTests.Server(snapshots: "\(temporary.path)/s", log: "\(temporary.path)/serve.log")
        let checks = "not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,"
            + "response_schema_conformance,negative_data_rejection,unsupported_method"
        let run = try #require(try CommandRunner.python([
            "-c", "import sys; from schemathesis.cli import schemathesis; sys.argv[0] = 'schemathesis'; sys.exit(schemathesis())",
            "run", "\(server.base)/openapi.json", "--checks", checks, "--max-examples", "150", "--seed", "1",
            "--phases", "examples,coverage,fuzzing", "--no-color",
        ]), "make test-tools installs schemathesis")
        #expect(run.status == 0, "\(run.stdout.suffix(3000))\(run.stderr.suffix(1000))")
        #expect(run.stdout.contains(" passed"))
    }
}
