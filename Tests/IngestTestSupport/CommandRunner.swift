import Foundation

/// Runs the `ingest` binary as the cron job would and captures what it says.
public struct CommandResult {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

public enum CommandRunner {
    /// The `ingest` binary with `arguments`, `environment` added to this process's, output discarded until set.
    private static func process(_ arguments: [String], environment: [String: String] = [:]) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: RepositoryFiles.ingestBinary)
        process.arguments = arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        return process
    }

    public static func ingest(_ arguments: [String], in directory: String? = nil, environment: [String: String] = [:]) throws -> CommandResult {
        let process = process(arguments, environment: environment)
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        return try captured(process)
    }

    /// The `ingest-serve` binary with `arguments`, run to its end: for what it says of bad options.
    public static func serve(_ arguments: [String]) throws -> CommandResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: RepositoryFiles.serveBinary)
        process.arguments = arguments
        return try captured(process)
    }

    /// The Python of the test tools (`var/test-venv`: jsonschema, datasette, sqlite-utils; `make test-tools`).
    public static let testPython = "\(RepositoryFiles.root)/var/test-venv/bin/python3"

    /// `testPython` with `arguments`; nil when `make test-tools` has not installed it.
    public static func python(_ arguments: [String]) throws -> CommandResult? {
        guard FileManager.default.isExecutableFile(atPath: testPython) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: testPython)
        process.arguments = arguments
        return try captured(process)
    }

    /// The program at `path` with `arguments`, run to its end.
    public static func executable(_ path: String, _ arguments: [String]) throws -> CommandResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        return try captured(process)
    }

    /// Any program on the PATH (`/usr/bin/env NAME …`), run to its end.
    public static func program(_ name: String, _ arguments: [String]) throws -> CommandResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [name] + arguments
        return try captured(process)
    }

    private static func captured(_ process: Process) throws -> CommandResult {
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read before waiting, so a chatty run cannot fill the pipe and stall.
        let (stdout, stderr) = drain(out.fileHandleForReading.fileDescriptor, err.fileHandleForReading.fileDescriptor)
        process.waitUntilExit()
        return CommandResult(status: process.terminationStatus,
                             stdout: String(decoding: stdout, as: UTF8.self),
                             stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// Both pipes read to their ends together: either may fill first, and a
    /// signal (a child ending) interrupts `read`. Foundation's
    /// `readDataToEndOfFile` reads one pipe at a time and traps on EINTR
    /// (`try!` inside it), which crashed the suite on a busy machine.
    private static func drain(_ first: Int32, _ second: Int32) -> (Data, Data) {
        var data = [Data(), Data()]
        var descriptors = [pollfd(fd: first, events: Int16(POLLIN), revents: 0), pollfd(fd: second, events: Int16(POLLIN), revents: 0)]
        var buffer = [UInt8](repeating: 0, count: 65536)
        while descriptors.contains(where: { $0.fd >= 0 }) {
            guard poll(&descriptors, nfds_t(descriptors.count), -1) >= 0 else {
                if errno == EINTR { continue }
                break
            }
            for index in descriptors.indices where descriptors[index].fd >= 0 && descriptors[index].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(descriptors[index].fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    data[index].append(contentsOf: buffer[..<count])
                } else if count == 0 || errno != EINTR && errno != EAGAIN {
                    descriptors[index].fd = -1 // its end (or an error that will not pass): done with it
                }
            }
        }
        return (data[0], data[1])
    }

    /// Starts `ingest` and sends it SIGKILL after `delay` seconds (if still running).
    /// Returns true if the kill landed before the run ended.
    public static func ingestKilled(after delay: TimeInterval, _ arguments: [String]) throws -> Bool {
        let process = process(arguments)
        try process.run()
        Thread.sleep(forTimeInterval: delay)
        let wasRunning = process.isRunning
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return wasRunning && process.terminationReason == .uncaughtSignal
    }

    /// Starts `ingest` with `environment` added to this process's, waits
    /// until `ready()` holds (polled), then sends SIGKILL. Returns true if
    /// the kill landed while the run was still going.
    public static func ingestKilled(when ready: () -> Bool, _ arguments: [String], environment: [String: String] = [:]) throws -> Bool {
        let process = process(arguments, environment: environment)
        try process.run()
        while process.isRunning, !ready() { Thread.sleep(forTimeInterval: 0.002) }
        let wasRunning = process.isRunning
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return wasRunning && process.terminationReason == .uncaughtSignal
    }

    /// Starts `ingest` with `--log-format json`'s lines going to
    /// `logFile`, waits until a line holds `marker` (polled, and only as
    /// long as the run goes on), then sends SIGKILL. Returns whether the
    /// marker was seen and the kill landed while the run was still going:
    /// the moment is named by what the run says it is doing, not by a
    /// clock, so a busy machine moves it no more than the run itself.
    public static func ingestKilled(atLogLineContaining marker: String, logFile: String, _ arguments: [String]) throws -> Bool {
        FileManager.default.createFile(atPath: logFile, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logFile))
        defer { try? log.close() } // closing our copy; the child has its own
        let process = process(arguments + ["--log-format", "json"])
        process.standardError = log
        try process.run()
        var seen = false
        while process.isRunning, !seen {
            // A log being written may end mid-line; a marker is whole once a line holds it.
            seen = ((try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "").contains(marker)
            if !seen { Thread.sleep(forTimeInterval: 0.002) }
        }
        let wasRunning = process.isRunning
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return seen && wasRunning && process.terminationReason == .uncaughtSignal
    }

    /// Starts `ingest` in the background; the caller stops or waits for it.
    public static func startIngest(_ arguments: [String]) throws -> Process {
        let process = process(arguments)
        try process.run()
        return process
    }
}
