import Foundation
import IngestSnapshot
import IngestTestSupport
import Testing
@testable import IngestCLI

/// `--report` and `--metrics-file` on every path a user gives (issue 17).
@Suite struct OutputPathTests {
    private func feeds(_ temporary: TemporaryDirectory) throws -> String {
        let feeds = temporary.subdirectory("feeds")
        for name in ["pharmacies.csv", "rax_5060_201012302305.txt"] {
            try FileManager.default.copyItem(atPath: RepositoryFiles.feed(name), toPath: "\(feeds)/\(name)")
        }
        return feeds
    }

    private func isJSONReport(_ data: Data) -> Bool {
        (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["published"] as? Bool == true
    }

    @Test func aBareNameADotPathAndAnAbsolutePathAreWrittenWholeInTheirOwnFolder() throws {
        let temporary = TemporaryDirectory()
        let feeds = try feeds(temporary)
        for (argument, written) in [("bare.json", "\(temporary.path)/bare.json"), ("./dot.json", "\(temporary.path)/dot.json"),
                                    ("\(temporary.path)/abs.json", "\(temporary.path)/abs.json")] {
            let result = try CommandRunner.ingest(["--feeds", feeds, "--snapshots", "\(temporary.path)/s-\(argument.count)", "--report", argument,
                                                   "--metrics-file", argument + ".prom"], in: temporary.path)
            #expect(result.status == 0, "\(argument): \(result.stderr)")
            #expect(isJSONReport(try Data(contentsOf: URL(fileURLWithPath: written))), "\(argument)")
            #expect(try PrometheusTextfile(contentsOfFile: written + ".prom")["ingest_last_run_exit_code"] == 0)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).allSatisfy { !$0.hasPrefix(".tmp-") })
    }

    /// As a normal user a bare name once put the temporary file in `/` (exit
    /// 73 after publishing; the metrics file silently missing): root can
    /// write `/`, so this runs the binary as `nobody`, from a copy it can reach.
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "needs root to become nobody"))
    func aBareNameWorksForANormalUser() throws {
        let temporary = TemporaryDirectory()
        let feeds = try feeds(temporary)
        let binary = "\(temporary.path)/ingest"
        try FileManager.default.copyItem(atPath: RepositoryFiles.ingestBinary, toPath: binary)
        try FileManager.default.copyItem(atPath: RepositoryFiles.mappingsDirectory, toPath: "\(temporary.path)/mappings")
        for path in [temporary.path, feeds, "\(temporary.path)/mappings"] { chmod(path, 0o777) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", binary, "--feeds", "feeds", "--snapshots", "s",
                             "--mappings", "mappings", "--report", "report.json", "--metrics-file", "ingest.prom"]
        process.currentDirectoryURL = URL(fileURLWithPath: temporary.path)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(isJSONReport(try Data(contentsOf: URL(fileURLWithPath: "\(temporary.path)/report.json"))))
        #expect(try PrometheusTextfile(contentsOfFile: "\(temporary.path)/ingest.prom")["ingest_last_run_exit_code"] == 0)
        let owner = try FileManager.default.attributesOfItem(atPath: "\(temporary.path)/report.json")[.ownerAccountID] as? Int
        #expect(owner == 65534, "written by the normal user")
    }

    @Test func aDashAndDevStdoutGoToStandardOutputAndTheLinkStays() throws {
        let temporary = TemporaryDirectory()
        let feeds = try feeds(temporary)
        for argument in ["-", "/dev/stdout"] {
            let result = try CommandRunner.ingest(["--feeds", feeds, "--snapshots", "\(temporary.path)/s\(argument.count)", "--report", argument])
            #expect(result.status == 0, "\(argument): \(result.stderr)")
            let json = try #require(result.stdout.range(of: "{\n"))
            #expect(isJSONReport(Data(result.stdout[json.lowerBound...].utf8)), "\(argument)")
        }
        var info = stat()
        #expect(lstat("/dev/stdout", &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK)
    }

    @Test func aFIFOIsWrittenDirectly() throws {
        let temporary = TemporaryDirectory()
        let fifo = "\(temporary.path)/report.fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let received = Received()
        // A blocking open and read to the end, as a shell's `cat fifo` would.
        let reader = Thread {
            let descriptor = open(fifo, O_RDONLY)
            var data = Data()
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while descriptor >= 0 {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                data.append(contentsOf: buffer[..<count])
            }
            if descriptor >= 0 { close(descriptor) }
            received.set(data)
        }
        reader.start()
        let result = try CommandRunner.ingest(["--feeds", try feeds(temporary), "--snapshots", "\(temporary.path)/s", "--report", fifo])
        #expect(result.status == 0, "\(result.stderr)")
        for _ in 0..<100 where received.data == nil { Thread.sleep(forTimeInterval: 0.05) }
        #expect(isJSONReport(received.data ?? Data()))
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO)
    }

    @Test func aReportThatCannotBeWrittenAfterAPublishExits5AndSaysTheSnapshotWasPublished() throws {
        let temporary = TemporaryDirectory()
        let result = try CommandRunner.ingest(["--feeds", try feeds(temporary), "--snapshots", "\(temporary.path)/s",
                                               "--report", "\(temporary.path)/no/such/folder/r.json"])
        #expect(result.status == ExitStatus.outputNotWritten.rawValue)
        let version = try #require(SnapshotDirectory(path: "\(temporary.path)/s").currentVersion())
        #expect(result.stderr.contains("\ningest: the snapshot \(version) was published, but the report could not be written to \(temporary.path)/no/such/folder/r.json: "))
    }


    /// Issue 35, item 6: a link is replaced by the new file, never written
    /// through (a shorter report once left the longer file's tail: invalid
    /// JSON, exit 0), and nothing is written into the snapshots folder (a
    /// report once overwrote the published snapshot through `current`).
    @Test func aLinkIsReplacedNotWrittenThroughAndTheSnapshotsFolderIsRefused() throws {
        let temporary = TemporaryDirectory()
        let feeds = try feeds(temporary)
        let snapshots = "\(temporary.path)/s"
        #expect(try CommandRunner.ingest(["--feeds", feeds, "--snapshots", snapshots]).status == 0)
        let directory = SnapshotDirectory(path: snapshots)
        let version = try #require(directory.currentVersion())

        let elsewhere = "\(temporary.path)/long.txt"
        let long = Data(repeating: 0x78, count: 1 << 20)
        try long.write(to: URL(fileURLWithPath: elsewhere))
        try FileManager.default.createSymbolicLink(atPath: "\(temporary.path)/report.json", withDestinationPath: elsewhere)
        let linked = try CommandRunner.ingest(["--feeds", feeds, "--snapshots", "\(temporary.path)/s2", "--report", "\(temporary.path)/report.json"])
        #expect(linked.status == 0, "\(linked.stderr)")
        #expect(isJSONReport(try Data(contentsOf: URL(fileURLWithPath: "\(temporary.path)/report.json"))))
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: "\(temporary.path)/report.json")) == nil, "the link is replaced")
        #expect(try Data(contentsOf: URL(fileURLWithPath: elsewhere)) == long, "its old target is untouched")

        for (option, path) in [("--report", "\(snapshots)/current"), ("--html", "\(snapshots)/page.html"), ("--metrics-file", "\(snapshots)/\(version).sqlite")] {
            let refused = try CommandRunner.ingest(["--feeds", feeds, "--snapshots", snapshots, option, path])
            #expect(refused.status == 64, "\(option)")
            #expect(refused.stdout == "")
            #expect(refused.stderr.hasPrefix("Error: \(option) \(path) lies in the snapshots folder \(snapshots), which is ingest's own; write outputs elsewhere\n"),
                    "\(refused.stderr)")
        }
        try FileManager.default.createSymbolicLink(atPath: "\(temporary.path)/snap-link", withDestinationPath: "\(snapshots)/\(version).sqlite")
        let throughLink = try CommandRunner.ingest(["--feeds", feeds, "--snapshots", snapshots, "--report", "\(temporary.path)/snap-link"])
        #expect(throughLink.status == 64)
        #expect(throughLink.stderr.hasPrefix("Error: --report \(temporary.path)/snap-link is a link into the snapshots folder \(snapshots) (to \(snapshots)/\(version).sqlite); it is never written through\n"))
        let out = try CommandRunner.ingest(["snapshots", "changeset", version, version, "--out", "\(snapshots)/x.bin", "--snapshots", snapshots])
        #expect(out.status == 64)
        #expect(try directory.versions() == [version])
        let verify = try CommandRunner.ingest(["snapshots", "verify", "--snapshots", snapshots])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
    }
}

/// What the FIFO's reader got, handed between threads.
private final class Received: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Data?
    var data: Data? { lock.withLock { value } }
    func set(_ data: Data) { lock.withLock { value = data } }
}
