import ArgumentParser
import Foundation
import IngestPipeline
import IngestSnapshot

/// `ingest snapshots …`: look after published snapshots.
struct SnapshotsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshots",
        abstract: "List, roll back, prune, verify and compare published snapshots.",
        discussion: ExitStatus.helpText,
        subcommands: [List.self, Rollback.self, Prune.self, Verify.self, Diff.self]
    )

    struct Location: ParsableArguments {
        @Option(name: .long, help: "Folder of published snapshots.")
        var snapshots = "var/snapshots"

        var directory: SnapshotDirectory { SnapshotDirectory(path: snapshots) }

        /// The version named, or exit 66 saying which exist.
        func existing(_ version: String) throws -> String {
            let versions = directory.versions()
            guard versions.contains(version) else {
                printError("ingest: no snapshot \(version) in \(snapshots); there are: \(versions.joined(separator: ", "))")
                throw ExitStatus.inputMissing.exitCode
            }
            return version
        }

        /// Holds the lock for `body`, or exits 75 naming the holder.
        func locked<T>(_ body: () throws -> T) throws -> T {
            do {
                let lock = try SnapshotLock(directory: directory)
                defer { withExtendedLifetime(lock) {} }
                return try body()
            } catch let held as SnapshotLock.Held {
                printError("ingest: \(held)")
                throw ExitStatus.locked.exitCode
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every published version with its time and counts; * marks current.")
        @OptionGroup var location: Location

        func run() throws {
            let directory = location.directory
            let current = directory.currentVersion()
            func pad(_ text: String, _ width: Int) -> String { text.padding(toLength: max(width, text.count), withPad: " ", startingAt: 0) }
            func right(_ value: Int, _ width: Int) -> String { let text = String(value); return String(repeating: " ", count: max(0, width - text.count)) + text }
            print("  " + pad("VERSION", 22) + pad("CREATED", 22) + "PHARMACIES     ITEMS      OFFERS  REJECTS")
            for version in directory.versions() {
                let manifest = try? directory.readManifest(version)
                let counts = manifest?.rowCounts ?? [:]
                let rejects = manifest?.rejectCounts.values.reduce(0, +) ?? 0
                let line = (version == current ? "* " : "  ") + pad(version, 22) + pad(manifest?.createdAt ?? "?", 22)
                    + right(counts["pharmacies"] ?? 0, 10) + right(counts["items"] ?? 0, 10) + right(counts["offers"] ?? 0, 12) + right(rejects, 9)
                print(line + (manifest?.forced == true ? "  forced" : ""))
            }
        }
    }

    struct Rollback: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Point current at an earlier version (atomic switch), once its file matches its manifest's SHA-256 and passes quick_check.",
            discussion: "Exit codes: 0 switched; 66 no such version; 70 the file does not match its manifest or fails quick_check (current unchanged); 75 another run holds the lock.")
        @OptionGroup var location: Location
        @Argument(help: "The version to make current.")
        var version: String

        /// SNAPSHOT.md: the file must match its manifest's SHA-256 (a tampered
        /// or damaged file is refused) and pass `PRAGMA quick_check` before
        /// `current` points at it; any failure exits 70 and changes nothing.
        func run() throws {
            let version = try location.existing(version)
            try location.locked {
                if let problem = Self.problem(with: version, in: location.directory) {
                    printError("ingest: \(version) \(problem); current is unchanged")
                    throw ExitStatus.integrityFailure.exitCode
                }
                try SnapshotPublisher(directory: location.directory).switchCurrent(to: version)
            }
            print("current → \(version)")
        }

        static func problem(with version: String, in directory: SnapshotDirectory) -> String? {
            let path = directory.snapshotPath(version)
            let manifest: Manifest
            do { manifest = try directory.readManifest(version) } catch {
                return "has no readable manifest to check it against (\(error))"
            }
            do {
                let digest = try FileDigest.sha256(path: path)
                guard digest == manifest.snapshot.sha256 else {
                    return "does not match its manifest: SHA-256 \(digest), the manifest says \(manifest.snapshot.sha256)"
                }
                let database = try SQLiteDatabase(path: path, readOnly: true)
                defer { database.close() }
                let check = try database.prepare("PRAGMA quick_check")
                var findings: [String] = []
                while try check.step() { findings.append(check.string(0) ?? "") }
                return findings == ["ok"] ? nil : "fails PRAGMA quick_check: \(findings.prefix(3).joined(separator: "; "))"
            } catch {
                return "cannot be checked: \(error)"
            }
        }
    }

    struct Prune: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete all but the newest N versions; current is always kept.")
        @OptionGroup var location: Location
        @Option(name: .long, help: "How many versions to keep.")
        var keep: Int

        func validate() throws {
            guard keep >= 1 else { throw ValidationError("--keep must be at least 1") }
        }

        func run() throws {
            let removed = try location.locked { SnapshotPublisher(directory: location.directory).prune(keep: keep) }
            print(removed.isEmpty ? "nothing to prune" : "removed: \(removed.joined(separator: ", "))")
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Integrity check and the manifest's SHA-256 of a version (default: current).")
        @OptionGroup var location: Location
        @Argument(help: "The version to verify.")
        var version: String?

        func run() throws {
            let directory = location.directory
            guard let version = try version.map(location.existing) ?? directory.currentVersion() else {
                printError("ingest: \(location.snapshots) has no current snapshot")
                throw ExitStatus.inputMissing.exitCode
            }
            var problems: [String] = []
            let path = directory.snapshotPath(version)
            do {
                let database = try SQLiteDatabase(path: path, readOnly: true)
                if let findings = try SnapshotIntegrityCheck.problems(in: database) { problems.append("integrity_check: \(findings)") }
                database.close()
            } catch {
                problems.append("cannot open: \(error)")
            }
            do {
                let manifest = try directory.readManifest(version)
                let digest = try FileDigest.sha256(path: path)
                if digest != manifest.snapshot.sha256 { problems.append("SHA-256 \(digest) differs from the manifest's \(manifest.snapshot.sha256)") }
            } catch {
                problems.append("manifest: \(error)")
            }
            if problems.isEmpty {
                print("\(version): ok (integrity_check ok, SHA-256 matches the manifest)")
            } else {
                print("\(version): FAILED")
                problems.forEach { print("  \($0)") }
                throw ExitStatus.integrityFailure.exitCode
            }
        }
    }

    struct Diff: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "What changed from version A to version B.")
        @OptionGroup var location: Location
        @Argument(help: "The older version.") var from: String
        @Argument(help: "The newer version.") var to: String
        @Flag(name: .long, help: "Print JSON instead of text.") var json = false

        func run() throws {
            let (from, to) = (try location.existing(from), try location.existing(to))
            let directory = location.directory
            let diff = try SnapshotDiff.compute(old: directory.snapshotPath(from), oldLabel: from, new: directory.snapshotPath(to), newLabel: to)
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                print(String(decoding: try encoder.encode(diff), as: UTF8.self))
            } else {
                print("\(from) → \(to)")
                ReportFormatter().format(diff).dropFirst(2).forEach { print($0) }
            }
        }
    }
}
