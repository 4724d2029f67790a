import Foundation
import IngestTestSupport
import Testing

/// `ingest-serve` as an operator starts it: bad options end it at once with
/// the usage error (64) and nothing on standard output; before any snapshot
/// is published it serves, answering 503 with a reason.
@Suite struct ServeCommandLineTests {
    static let usage = """
        Usage: ingest-serve [--snapshots <dir>] [--host <host>] [--port <port>] [--reload-interval <seconds>] [--io-threads <count>] [--query-threads <count>] [--header-timeout <seconds>] [--idle-timeout <seconds>] [--max-connections <count>] [--access-log <path>] [--time-zone <zone>] [--cors-origin <origin> ...]
          See 'ingest-serve --help' for more information.

        """

    @Test(arguments: [(["--port", "70000"], "--port must be 0…65535"),
                      (["--io-threads", "0"], "--io-threads must be 1 or more"),
                      (["--reload-interval", "0"], "--reload-interval must be above 0"),
                      (["--query-threads", "0"], "--query-threads must be 1 or more"),
                      (["--idle-timeout", "0"], "--header-timeout and --idle-timeout must be above 0"),
                      (["--max-connections", "0"], "--max-connections must be 1 or more")])
    func badOptionsEndItWithTheUsageError(arguments: [String], error: String) throws {
        let result = try CommandRunner.serve(arguments)
        #expect(result.status == 64)
        #expect(result.stdout == "")
        #expect(result.stderr == "Error: \(error)\n" + Self.usage)
    }

    @Test func beforeAnyPublishItAnswers503WithAReason() async throws {
        let temporary = TemporaryDirectory()
        let server = try ServeEndToEndTests.Server(snapshots: "\(temporary.path)/none", log: "\(temporary.path)/serve.log")
        let answer = try await ServeEndToEndTests.get("\(server.base)/?q=p")
        #expect(answer.status == 503 && answer.version == nil)
        #expect(String(decoding: answer.body, as: UTF8.self) == #"{"error":"no snapshot has been published yet"}"#)
        let health = try await ServeEndToEndTests.get("\(server.base)/health")
        #expect(health.status == 503 && String(decoding: health.body, as: UTF8.self) == #"{"error":"no snapshot has been published yet"}"#)
        #expect(try String(contentsOfFile: server.log, encoding: .utf8)
            .contains("no snapshot to serve yet in \(temporary.path)/none: answering 503 until one is published"))
    }
}
