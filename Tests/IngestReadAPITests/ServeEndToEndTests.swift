import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import IngestSnapshot
import IngestTestSupport
import Testing

/// `ingest-serve` as a client meets it: generate, import, serve, ask the
/// five queries over HTTP and hold each answer to SQL on the snapshot;
/// publish a new version while requests run and see none fail and the new
/// data served afterwards; fetch the night's changeset.
@Suite(.serialized) struct ServeEndToEndTests {
    /// A running `ingest-serve` on a free port, stopped when released.
    final class Server {
        let process = Process()
        let base: String

        /// The server's log (its standard error).
        let log: String
        /// Its access log: a JSON line per request.
        var accessLog: String { log + ".access" }

        init(snapshots: String, log: String, options: [String] = []) throws {
            process.executableURL = URL(fileURLWithPath: RepositoryFiles.serveBinary)
            process.arguments = ["--snapshots", snapshots, "--port", "0", "--reload-interval", "0.05", "--access-log", log + ".access"] + options
            let output = Pipe()
            process.standardOutput = output
            self.log = log
            FileManager.default.createFile(atPath: log, contents: nil)
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
            try process.run()
            // The first line is "listening on http://127.0.0.1:PORT".
            var line = Data()
            while !line.contains(0x0A) {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                line.append(chunk)
            }
            let text = String(decoding: line, as: UTF8.self)
            guard let start = text.range(of: "http://") else { throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: text]) }
            base = String(text[start.lowerBound...].prefix { !$0.isWhitespace })
        }

        deinit {
            process.terminate()
            process.waitUntilExit()
        }
    }

    struct Answer {
        var status: Int
        var version: String?
        var body: Data
        /// `Repr-Digest` (a changeset's SHA-256).
        var digest: String? = nil
        var json: Any? { try? JSONSerialization.jsonObject(with: body) }
    }

    /// Tells the load's clients to stop after the request they are in:
    /// cancelling a task inside FoundationNetworking's `data(from:)` can
    /// leave it waiting for ever on Linux (a test run hung so).
    final class StopSignal: @unchecked Sendable {
        private let lock = NSLock()
        private var stopped = false
        var isSet: Bool { lock.withLock { stopped } }
        func set() { lock.withLock { stopped = true } }
    }

    /// A GET that fails after `timeout` seconds rather than waiting for ever:
    /// a guard against a hang, not a measure (a changeset on a busy machine takes minutes).
    static func get(_ url: String, timeout: TimeInterval = 30) async throws -> Answer {
        var request = URLRequest(url: URL(string: url)!)
        request.timeoutInterval = timeout
        let (body, response) = try await URLSession.shared.data(for: request)
        let http = response as? HTTPURLResponse
        return Answer(status: http?.statusCode ?? 0, version: http?.value(forHTTPHeaderField: "X-Snapshot-Version"), body: body,
                      digest: http?.value(forHTTPHeaderField: "Repr-Digest"))
    }

    /// What python-jsonschema says of each answer against the named schema
    /// of the OpenAPI document's components: nothing when all hold.
    static func schemaProblems(document: Data, answers: [(schema: String, answer: Answer)], in temporary: TemporaryDirectory) throws -> String {
        let documentPath = "\(temporary.path)/openapi.json"
        try document.write(to: URL(fileURLWithPath: documentPath))
        var arguments = ["-c", """
            import json, sys, jsonschema
            document = json.load(open(sys.argv[1]))
            for schema, path in zip(sys.argv[2::2], sys.argv[3::2]):
                root = dict(document, **{"$ref": "#/components/schemas/" + schema})
                for error in jsonschema.Draft202012Validator(root).iter_errors(json.load(open(path))):
                    print(schema, path.rsplit("/", 1)[-1], list(error.absolute_path), error.message)
            """, documentPath]
        for (index, (schema, answer)) in answers.enumerated() {
            let path = "\(temporary.path)/answer-\(index).json"
            try answer.body.write(to: URL(fileURLWithPath: path))
            arguments += [schema, path]
        }
        guard let result = try CommandRunner.python(arguments) else {
            return "no JSON Schema validator at \(CommandRunner.testPython): `make test-tools` (run by `make test`) installs it"
        }
        return result.status == 0 ? result.stdout : "validator exited \(result.status): \(result.stdout)\(result.stderr)"
    }

    static func generate(_ temporary: TemporaryDirectory, _ name: String, _ extra: [String] = []) throws {
        let generated = try CommandRunner.ingest(["generate", "--out", "\(temporary.path)/\(name)", "--pharmacies", "12", "--items", "150",
                                                  "--seed", "21"] + extra)
        #expect(generated.status == 0, "\(generated.stderr)")
    }

    static func importNight(_ temporary: TemporaryDirectory, _ name: String, day: String) throws {
        let run = try CommandRunner.ingest(["--feeds", "\(temporary.path)/\(name)/feeds", "--mappings", "\(temporary.path)/\(name)/mappings",
                                            "--snapshots", "\(temporary.path)/s", "--as-of", day])
        #expect(run.status == 0, "\(run.stderr)")
    }

    @Test func theFiveQueriesOverHTTPMatchTheSnapshotAndANewVersionIsServedWithoutAFailure() async throws {
        let temporary = TemporaryDirectory()
        try Self.generate(temporary, "n1")
        try Self.generate(temporary, "n2", ["--days-later", "1", "--price-change-rate", "0.3"])
        try Self.importNight(temporary, "n1", day: "2025-11-21")
        let directory = SnapshotDirectory(path: "\(temporary.path)/s")
        let first = try #require(directory.currentVersion())
        let server = try Server(snapshots: directory.path, log: "\(temporary.path)/serve.log")
        let query = try SnapshotQuery(directory.snapshotPath(first))

        // /health: the version served, its schema and when it was published.
        let health = try await Self.get("\(server.base)/health")
        let created = try #require(query.value("SELECT value FROM meta WHERE key = 'created_at'"))
        #expect(health.status == 200 && health.version == first)
        #expect(String(decoding: health.body, as: UTF8.self)
                == #"{"status":"ok","version":"\#(first)","schema":\#(SnapshotSchema.version),"published":"\#(created)"}"#)

        // q=p: every pharmacy once, with the snapshot's fields.
        let list = try await Self.get("\(server.base)/?q=p")
        #expect(list.status == 200 && list.version == first)
        let regions = try #require(((list.json as? [String: Any])?["regions"] as? [[String: Any]]))
        let listed = regions.flatMap { region in (region["p"] as? [[String: String]] ?? []).map { (region["n"] as? String ?? "", $0) } }
        #expect(listed.count == query.int("SELECT count(*) FROM pharmacies"))
        for (region, pharmacy) in listed {
            let row = query.rows("SELECT name, region, phone, address, chain_id, open_hours, item_count, stale FROM pharmacies WHERE id = '\(pharmacy["i"] ?? "")'").first
            #expect(row == [pharmacy["n"], region, pharmacy["p"], pharmacy["a"], pharmacy["c"], pharmacy["o"], pharmacy["ic"], pharmacy["s"]])
        }

        // q=ip and q=id for the most widely sold item: every offer, its price in euros.
        let item = try #require(query.value("SELECT aptcode FROM offers GROUP BY aptcode ORDER BY count(*) DESC, aptcode LIMIT 1"))
        let sold = try await Self.get("\(server.base)/?q=ip&aptcode=\(item)&latitude=59.437&longitude=24.7536")
        let groups = try #require(((sold.json as? [String: Any])?["item_pharmacies"] as? [[String: Any]]))
        let offers = groups.flatMap { $0["p"] as? [[String: String]] ?? [] }
        let expected = query.rows("SELECT pharmacy_id, price_cents FROM offers WHERE aptcode = '\(item)' ORDER BY pharmacy_id")
        #expect(offers.map { [$0["pi"], $0["p"]] }.sorted { ($0[0] ?? "") < ($1[0] ?? "") }
            == expected.map { [$0[0], Self.euros($0[1])] })
        #expect(offers.allSatisfy { $0["i"] == item && $0["di"]?.hasSuffix("m") == true })
        let pharmacy = try #require(expected.first?[0])
        let details = try await Self.get("\(server.base)/?q=id&aptcode=\(item)&client_id=\(pharmacy ?? "")")
        let detail = try #require((((details.json as? [String: Any])?["item_details"] as? [[String: Any]]))?.first)
        let offerRow = try #require(query.rows("""
            SELECT i.name, i.producer, i.atc, p.name, o.price_cents, o.limit_price_cents, o.price_50_cents, o.price_75_cents, o.price_90_cents, o.price_100_cents
            FROM offers o JOIN items i USING (aptcode) JOIN pharmacies p ON p.id = o.pharmacy_id WHERE o.aptcode = '\(item)' AND o.pharmacy_id = '\(pharmacy ?? "")'
            """).first)
        let fields = ["itemName", "producerName", "atc", "pharmacyName", "price", "priceLimit", "priceDisc50", "priceDisc75", "priceDisc90", "priceDisc100"]
        #expect(fields.map { detail[$0] as? String } == offerRow.enumerated().map { $0.offset < 4 ? ($0.element ?? "") : Self.euros($0.element) })

        // q=h for the same offer: its one price so far (night 1), from the export's date.
        let history = try await Self.get("\(server.base)/?q=h&aptcode=\(item.lowercased())&client_id=\(pharmacy ?? "")")
        let since = try #require(query.value("SELECT last_refresh FROM pharmacies WHERE id = '\(pharmacy ?? "")'"))
        let day = since.prefix(10).split(separator: "-").reversed().joined(separator: ".")
        #expect(((history.json as? [String: Any])?["price_history"] as? [[String: String]]) == [["d": day, "p": Self.euros(offerRow[4]) ?? ""]])

        // q=i: a name's first letters find exactly the items with a word so beginning, by name.
        let name = try #require(query.value("SELECT name FROM items ORDER BY aptcode LIMIT 1"))
        let prefix = String(name.prefix(3))
        let searched = try await Self.get("\(server.base)/?q=i&search=\(prefix.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
        let items = try #require(((searched.json as? [String: Any])?["items"] as? [[String: String]]))
        // Version 2: a word of the name, the producer or the substance.
        let names = query.rows("SELECT aptcode, name || ' ' || coalesce(producer, '') || ' ' || coalesce(active_substance, '') FROM items").filter { row in
            (row[1] ?? "").split(whereSeparator: { !$0.isLetter && !$0.isNumber }).contains { $0.lowercased().hasPrefix(prefix.lowercased()) }
        }
        #expect(!items.isEmpty && Set(items.map { $0["a"] ?? "" }) == Set(names.prefix(50).map { $0[0] ?? "" }))
        #expect(items.map { $0["n"] ?? "" } == items.map { $0["n"] ?? "" }.sorted())

        // q=a: the top level, each count as the table has it.
        let tree = try await Self.get("\(server.base)/?q=a")
        let top = try #require(((tree.json as? [String: Any])?["atc"] as? [[String: String]]))
        #expect(top.map { [$0["a"], $0["n"], $0["c"]] } == query.rows("SELECT code, name, item_count FROM atc WHERE parent IS NULL ORDER BY code"))

        // The OpenAPI document is served and lists every query.
        let openAPI = try await Self.get("\(server.base)/openapi.json")
        let document = try #require(openAPI.json as? [String: Any])
        let root = (((document["paths"] as? [String: Any])?["/"] as? [String: Any])?["get"] as? [String: Any])
        let q = (root?["parameters"] as? [[String: Any]])?.first { $0["name"] as? String == "q" }
        #expect(document["openapi"] as? String == "3.1.0" && (q?["schema"] as? [String: Any])?["enum"] as? [String] == ["p", "i", "ip", "id", "a", "h", "eq", "dx", "g", "changes"])

        // Errors are 400 with a reason.
        let bad = try await Self.get("\(server.base)/?q=ip")
        #expect(bad.status == 400 && (bad.json as? [String: String])?["error"] == "q=ip needs the parameter aptcode")

        // Every answer holds to the OpenAPI document's schema for it (python-jsonschema, Draft 2020-12).
        let near = try await Self.get("\(server.base)/?q=p&latitude=59.437&longitude=24.7536")
        let nearest = try await Self.get("\(server.base)/?q=ip&aptcode=\(item)&latitude=59.437&longitude=24.7536&onlyNearest=1")
        let paged = try await Self.get("\(server.base)/?q=i&search=\(prefix.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&limit=1")
        #expect((paged.json as? [String: Any])?["next"] as? String == (items.count > 1 ? "1" : nil))

        // q=eq: an item of the generated register with an equivalent sold somewhere; the answer lists each offer of the group once.
        let twin = try #require(query.value("""
            SELECT a.aptcode FROM items a JOIN medicine_register ra ON ra.package_code = a.package_code
            JOIN medicine_register rb ON rb.package_code <> ra.package_code AND lower(trim(rb.atc)) = lower(trim(ra.atc))
             AND lower(trim(rb.form)) = lower(trim(ra.form)) AND lower(trim(rb.strength)) = lower(trim(ra.strength))
             AND lower(trim(rb.pack_size)) = lower(trim(ra.pack_size))
            JOIN items b ON b.package_code = rb.package_code JOIN offers o ON o.aptcode = b.aptcode ORDER BY a.aptcode LIMIT 1
            """))
        let equivalents = try await Self.get("\(server.base)/?q=eq&aptcode=\(twin)&latitude=59.437&longitude=24.7536&tier=75&limit=500")
        let offered = ((equivalents.json as? [String: Any])?["equivalents"] as? [[String: String]]) ?? []
        #expect(Set(offered.map { $0["i"] ?? "" }).count >= 2 && offered.count == Set(offered.map { "\($0["i"] ?? "")/\($0["pi"] ?? "")" }).count)

        let answers = [("PharmacyList", list), ("PharmacyList", near), ("ItemSearch", searched), ("ItemSearch", paged), ("ItemPharmacies", sold),
                       ("ItemPharmacies", nearest), ("ItemDetails", details), ("ATCTree", tree), ("PriceHistory", history),
                       ("Equivalents", equivalents), ("Error", bad)]
        #expect(try Self.schemaProblems(document: openAPI.body, answers: answers, in: temporary) == "")

        // Night 2 is published while four clients keep asking.
        let base = server.base
        let stop = StopSignal()
        defer { stop.set() } // also when an expectation below throws
        let load = Task {
            try await withThrowingTaskGroup(of: (ok: Int, failed: Int, versions: Set<String>).self) { group in
                for client in 0..<4 {
                    group.addTask {
                        var tally = (ok: 0, failed: 0, versions: Set<String>())
                        let paths = ["?q=p", "?q=ip&aptcode=\(item)", "?q=id&aptcode=\(item)&client_id=\(pharmacy ?? "")", "?q=a", "?q=i&search=\(client)"]
                        while !stop.isSet {
                            let answer: Answer
                            do {
                                answer = try await Self.get("\(base)/\(paths[tally.ok % paths.count])")
                            } catch {
                                tally.failed += 1
                                continue
                            }
                            if answer.status == 200, answer.json != nil, let version = answer.version {
                                tally.ok += 1
                                tally.versions.insert(version)
                            } else {
                                tally.failed += 1
                            }
                        }
                        return tally
                    }
                }
                var total = (ok: 0, failed: 0, versions: Set<String>())
                for try await tally in group {
                    total.ok += tally.ok
                    total.failed += tally.failed
                    total.versions.formUnion(tally.versions)
                }
                return total
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        try Self.importNight(temporary, "n2", day: "2025-11-22")
        let second = try #require(directory.currentVersion())
        #expect(second != first)
        var served: String?
        for _ in 0..<100 where served != second {
            served = try await Self.get("\(base)/?q=a").version
            try await Task.sleep(for: .milliseconds(50))
        }
        try await Task.sleep(for: .milliseconds(200))
        stop.set()
        let total = try await load.value
        // How many answers fit in the publish's time is a busy machine's business; that each one was whole, and from both versions, is not.
        #expect(total.failed == 0, "\(total)")
        #expect(total.versions == [first, second], "\(total.versions)")

        // Afterwards: night 2's prices.
        let newQuery = try SnapshotQuery(directory.snapshotPath(second))
        let after = try await Self.get("\(base)/?q=ip&aptcode=\(item)")
        #expect(after.version == second)
        let newOffers = (((after.json as? [String: Any])?["item_pharmacies"] as? [[String: Any]]) ?? []).flatMap { $0["p"] as? [[String: String]] ?? [] }
        #expect(newOffers.map { [$0["pi"], $0["p"]] }.sorted { ($0[0] ?? "") < ($1[0] ?? "") }
            == newQuery.rows("SELECT pharmacy_id, price_cents FROM offers WHERE aptcode = '\(item)' ORDER BY pharmacy_id").map { [$0[0], Self.euros($0[1])] })

        // The server made the changeset from night 1 as soon as it opened night 2, before any client asked.
        let ready = "event=changeset_ready from=\(first) to=\(second)"
        for _ in 0..<200 where !((try? String(contentsOfFile: server.log, encoding: .utf8)) ?? "").contains(ready) {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(try String(contentsOfFile: server.log, encoding: .utf8).contains(ready))

        // The changeset from night 1 turns a copy of it into night 2; night 2 is current already; a bogus version is gone.
        let changes = try await Self.get("\(base)/?q=changes&since=\(first)")
        #expect(changes.status == 200 && changes.version == second && !changes.body.isEmpty)
        let copy = "\(temporary.path)/client.sqlite"
        try FileManager.default.copyItem(atPath: directory.snapshotPath(first), toPath: copy)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: copy)
        let digest = try #require(changes.digest)
        #expect(digest == "sha-256=:\(Data(ChangesetDigest(of: changes.body).bytes).base64EncodedString()):")
        // Cut short or with one bit flipped, it is refused by its digest before SQLite reads it; the copy is untouched.
        let untouched = try Data(contentsOf: URL(fileURLWithPath: copy))
        var flipped = changes.body
        flipped[flipped.count / 2] ^= 0x10
        for (name, damaged) in [("cut", changes.body.prefix(changes.body.count * 3 / 20)), ("flipped", flipped)] {
            let file = "\(temporary.path)/\(name).changeset"
            try damaged.write(to: URL(fileURLWithPath: file))
            let refused = try CommandRunner.ingest(["snapshots", "apply", file, "--to", copy, "--digest", digest])
            #expect(refused.status == 70 && refused.stdout == "")
            #expect(refused.stderr == "ingest: \(file) does not match its digest (sha-256 \(ChangesetDigest(of: damaged).hex), expected "
                + "\(ChangesetDigest(of: changes.body).hex)): truncated or altered on the way; nothing was applied to \(copy)\n")
            #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == untouched)
        }
        let file = "\(temporary.path)/night.changeset"
        try changes.body.write(to: URL(fileURLWithPath: file))
        let applied = try CommandRunner.ingest(["snapshots", "apply", file, "--to", copy, "--digest", digest, "--manifest", directory.manifestPath(second)])
        #expect(applied.status == 0 && applied.stdout == "applied \(file) to \(copy): \(changes.body.count) bytes, sha-256 \(ChangesetDigest(of: changes.body).hex)"
            + ", every table as \(second)'s manifest says\n", "\(applied.stdout)\(applied.stderr)")
        #expect(try SnapshotQuery(copy).rows("SELECT * FROM offers ORDER BY pharmacy_id, aptcode")
            == newQuery.rows("SELECT * FROM offers ORDER BY pharmacy_id, aptcode"))
        #expect(try await Self.get("\(base)/?q=changes&since=\(second)").status == 204)
        let gone = try await Self.get("\(base)/?q=changes&since=20000101T000000Z-001")
        #expect(gone.status == 410 && ((gone.json as? [String: String])?["error"] ?? "").hasSuffix("download the whole snapshot"))
        withExtendedLifetime(server) {}
    }

    /// `"237"` (cents, as SQLite's text) → `"2.37€"`; NULL → `""`.
    static func euros(_ cents: String?) -> String? {
        guard let cents, let value = Int(cents) else { return "" }
        return String(format: "%d.%02d€", value / 100, value % 100)
    }
}
