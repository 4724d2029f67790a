import Foundation
import IngestSnapshot
import IngestTestSupport
import Testing

/// Issue 44, item 2: the access log is opened `O_APPEND` and again on
/// SIGHUP. Before, the shipped `copytruncate` left 1,943 NUL bytes at the
/// head of the truncated file (the server kept writing at its old offset).
@Suite(.serialized) struct AccessLogRotationTests {
    /// Four clients ask 600 questions between them; after the 200th answer
    /// the log is moved away and the server told (logrotate's `postrotate`),
    /// after the 400th the new file is truncated in place (what
    /// `copytruncate` does). Every answered request has its line in one of
    /// the two files, and neither holds a NUL byte.
    @Test func aRotationUnderLoadLosesNoLineAndATruncationLeavesNoNULByte() throws {
        let temporary = TemporaryDirectory()
        try ServeEndToEndTests.generate(temporary, "n1")
        try ServeEndToEndTests.importNight(temporary, "n1", day: "2025-11-21")
        let server = try ServeEndToEndTests.Server(snapshots: "\(temporary.path)/s", log: "\(temporary.path)/serve.log")
        let address = server.base.dropFirst("http://".count).split(separator: ":")
        let script = """
            import os, signal, socket, sys, threading
            host, port, log, pid = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
            cond = threading.Condition()
            state = {'asked': 0, 'answered': 0, 'inflight': 0, 'paused': False, 'before_truncate': 0}
            def ask():
                s = socket.create_connection((host, port), timeout=30)
                s.sendall(b'GET /?q=a HTTP/1.1\\r\\nHost: test\\r\\nConnection: close\\r\\n\\r\\n')
                data = b''.join(iter(lambda: s.recv(65536), b''))
                s.close()
                return data.startswith(b'HTTP/1.1 200')
            def client():
                while True:
                    with cond:
                        cond.wait_for(lambda: not state['paused'])
                        if state['asked'] == 600:
                            return
                        state['asked'] += 1
                        state['inflight'] += 1
                    ok = ask()
                    with cond:
                        state['inflight'] -= 1
                        state['answered'] += ok
                        if state['answered'] == 200:
                            os.rename(log, log + '.1')
                            os.kill(pid, signal.SIGHUP)
                        if state['answered'] == 400:
                            # copytruncate, with no request in flight (a line is written before its answer):
                            # what was written is dropped by design; the writer must go on at 0.
                            state['paused'] = True
                            cond.wait_for(lambda: state['inflight'] == 0)
                            state['before_truncate'] = sum(1 for _ in open(log, 'rb'))
                            os.truncate(log, 0)
                            state['paused'] = False
                        cond.notify_all()
            threads = [threading.Thread(target=client) for _ in range(4)]
            for t in threads: t.start()
            for t in threads: t.join()
            print(state['answered'], state['before_truncate'])
            """
        let log = server.accessLog
        guard let result = try CommandRunner.python(["-c", script, String(address[0]), String(address[1]), log, "\(server.process.processIdentifier)"]) else {
            Issue.record("no Python at \(CommandRunner.testPython): `make test-tools` (run by `make test`) installs it")
            return
        }
        #expect(result.status == 0, "\(result.stderr)")
        let counts = result.stdout.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        #expect(counts.first == 600)
        let rotated = try Data(contentsOf: URL(fileURLWithPath: log + ".1"))
        let current = try Data(contentsOf: URL(fileURLWithPath: log))
        #expect(!rotated.contains(0) && !current.contains(0), "a NUL byte in the access log")
        func lines(_ data: Data) -> Int { data.split(separator: 0x0A).count }
        // The line of a request is written before its answer is sent: all 600 are in, less those the truncation dropped.
        #expect(lines(rotated) + (counts.last ?? 0) + lines(current) == 600,
                "\(lines(rotated)) rotated + \(counts.last ?? 0) truncated + \(lines(current)) current")
        #expect(lines(rotated) >= 200 && (counts.last ?? 0) > 0)
        #expect(try String(contentsOfFile: server.log, encoding: .utf8).contains("access_log_reopened"))
    }
}
