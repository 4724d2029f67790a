import ArgumentParser
import Foundation
import IngestAdapters
import IngestCore
import IngestPipeline
import IngestSnapshot

/// `ingest snapshots …`: look after published snapshots.
struct SnapshotsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshots",
        abstract: "List, roll back, prune, verify and compare published snapshots; make and apply changesets.",
        discussion: "Each subcommand lists its own exit codes in its --help.",
        subcommands: [List.self, Rollback.self, Prune.self, Verify.self, Diff.self, Changeset.self, Apply.self, WalkChangeset.self]
    )

    /// Every subcommand's exit codes, as its --help and the README list them.
    static let exitCodes: [(name: String, codes: [(ExitStatus, String)])] = [
        ("list", List.exitCodes), ("rollback", Rollback.exitCodes), ("prune", Prune.exitCodes),
        ("verify", Verify.exitCodes), ("diff", Diff.exitCodes), ("changeset", Changeset.exitCodes), ("apply", Apply.exitCodes),
    ]

    struct Location: ParsableArguments {
        @Option(name: .long, help: "Folder of published snapshots.")
        var snapshots = "var/snapshots"

        var directory: SnapshotDirectory { SnapshotDirectory(path: snapshots) }

        /// Runs a subcommand: a failure prints what went wrong and exits with
        /// its documented code (a read-only folder 73, an I/O error 74, the
        /// lock held 75), never a bare 1.
        func guarded(_ body: () throws -> Void) throws {
            do {
                try body()
            } catch let code as ExitCode {
                throw code
            } catch let held as SnapshotLock.Held {
                printError("ingest: \(held)")
                throw ExitStatus.locked.exitCode
            } catch {
                printError("ingest: \(error)")
                throw ImportCommand.status(for: error).exitCode
            }
        }

        /// The snapshots folder, or exit 66.
        func requireFolder() throws {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
                printError("ingest: there is no snapshots folder \(snapshots)")
                throw ExitStatus.inputMissing.exitCode
            }
        }

        /// The version named, or exit 66 saying which exist. `current` names
        /// the version `current` points at, `previous` the one published before it.
        func existing(_ version: String) throws -> String {
            let versions = try directory.versions()
            if version == "current" || version == "previous" {
                guard let current = directory.currentVersion(), let index = versions.firstIndex(of: current) else {
                    printError("ingest: there is no current snapshot in \(snapshots)")
                    throw ExitStatus.inputMissing.exitCode
                }
                if version == "current" { return current }
                guard index > 0 else {
                    printError("ingest: no version in \(snapshots) was published before current (\(current))")
                    throw ExitStatus.inputMissing.exitCode
                }
                return versions[index - 1]
            }
            guard versions.contains(version) else {
                printError("ingest: no snapshot \(version) in \(snapshots); there are: \(versions.joined(separator: ", "))")
                throw ExitStatus.inputMissing.exitCode
            }
            return version
        }

        /// Holds the lock for `body` (a held lock is `SnapshotLock.Held`, exit 75 through `guarded`).
        func locked<T>(_ body: () throws -> T) throws -> T {
            let lock = try SnapshotLock(directory: directory)
            defer { withExtendedLifetime(lock) {} }
            return try body()
        }
    }

    struct List: ParsableCommand {
        static let exitCodes: [(ExitStatus, String)] = [(.success, "listed"), (.inputMissing, "there is no snapshots folder")] + ExitStatus.always
        static let configuration = CommandConfiguration(
            abstract: "Every published version with its time, size and counts (pharmacies, stale ones, items, offers, rejects); * marks current.",
            discussion: ExitStatus.helpText(exitCodes))
        @OptionGroup var location: Location

        func run() throws {
            try location.requireFolder()
            let directory = location.directory
            let current = directory.currentVersion()
            let (pad, right) = (TextColumns.left, TextColumns.right)
            print("  " + pad("VERSION", 22) + pad("CREATED", 22) + "     SIZE  PHARMACIES  STALE     ITEMS      OFFERS  REJECTS")
            for version in try directory.versions() {
                // A version without a readable manifest is still listed, its figures "?": `verify` says what is wrong with it.
                let manifest = try? directory.readManifest(version)
                let counts = manifest?.rowCounts ?? [:]
                let rejects = manifest?.rejectCounts.values.reduce(0, +) ?? 0
                let size = manifest.map { String(format: "%.1f MB", Double($0.snapshot.size) / 1_000_000) } ?? "?"
                let line = (version == current ? "* " : "  ") + pad(version, 22) + pad(manifest?.createdAt ?? "?", 22) + right(size, 9)
                    + right(String(counts["pharmacies"] ?? 0), 12) + right(Self.stale(in: directory.snapshotPath(version)), 7)
                    + right(String(counts["items"] ?? 0), 10) + right(String(counts["offers"] ?? 0), 12) + right(String(rejects), 9)
                print(line + (manifest?.forced == true ? "  forced" : ""))
            }
        }

        /// The pharmacies the version serves from carried-over data, from its
        /// own `pharmacies.stale`; "?" when the file cannot be read.
        static func stale(in path: String) -> String {
            do {
                let database = try SQLiteDatabase(path: path, readOnly: true)
                return String(try database.scalarInt("SELECT count(*) FROM pharmacies WHERE stale = 1") ?? 0)
            } catch {
                return "?"
            }
        }
    }

    struct Rollback: ParsableCommand {
        static let exitCodes: [(ExitStatus, String)] = [
            (.success, "current points at the version"),
            (.inputMissing, "there is no such version"),
            (.integrityFailure, "the file does not match its manifest or fails quick_check; current is unchanged"),
            (.cannotWrite, "the snapshots folder cannot be written; current is unchanged"),
            (.ioError, "an I/O error; current is unchanged"),
            (.locked, "another run holds the lock"),
        ] + ExitStatus.always
        static let configuration = CommandConfiguration(
            abstract: "Point current at an earlier version (atomic switch), once its file matches its manifest's SHA-256 and passes quick_check.",
            discussion: ExitStatus.helpText(exitCodes))
        @OptionGroup var location: Location
        @Flag(name: .long, help: "Also quarantine the feeds the versions rolled back loaded (and the version kept did not), so the next night does not load them again.")
        var quarantine = false
        @Argument(help: "The version to make current.")
        var version: String

        /// SNAPSHOT.md: the file must match its manifest's SHA-256 (a tampered
        /// or damaged file is refused) and pass `PRAGMA quick_check` before
        /// `current` points at it; any failure exits 70 and changes nothing.
        func run() throws {
            try ServiceUser.require(snapshots: location.snapshots)
            let version = try location.existing(version)
            let leaving = location.directory.currentVersion()
            var quarantined: [Quarantine.Entry] = []
            try location.guarded {
                try location.locked {
                    if let problem = PublishedVersionCheck.problem(with: version, in: location.directory) {
                        printError("ingest: \(version) \(problem); current is unchanged")
                        throw ExitStatus.integrityFailure.exitCode
                    }
                    try SnapshotPublisher(directory: location.directory).switchCurrent(to: version)
                    if quarantine, let leaving { quarantined = try Self.quarantineInputs(after: version, through: leaving, in: location) }
                }
            }
            print("current → \(version)")
            for entry in quarantined { print("quarantined \(String(entry.sha256.prefix(12))) \(FeedPath.displayName(Array(entry.file.utf8)))") }
        }

        /// The stock feeds loaded by the versions after `kept` up to `leaving`
        /// and not by `kept` itself, into the quarantine list.
        static func quarantineInputs(after kept: String, through leaving: String, in location: Location) throws -> [Quarantine.Entry] {
            let directory = location.directory
            let versions = try directory.versions()
            guard let from = versions.firstIndex(of: kept), let to = versions.firstIndex(of: leaving), to > from else { return [] }
            let keptInputs = Set(try directory.readManifest(kept).inputs.filter { $0.outcome == "loaded" }.map(\.sha256))
            let now = MachineTime.utcSeconds(Date())
            let manifests = try versions[(from + 1)...to].map { ($0, try directory.readManifest($0)) }
            return try Quarantine.update(in: directory) { list in
                var added: [Quarantine.Entry] = []
                for (version, manifest) in manifests {
                    for input in manifest.inputs where input.outcome == "loaded" && input.kind == "stock" && !keptInputs.contains(input.sha256) {
                        let entry = Quarantine.Entry(sha256: input.sha256, file: input.file, addedAt: now, reason: "loaded by \(version), rolled back to \(kept)")
                        if list.add(entry) { added.append(entry) }
                    }
                }
                return added
            }
        }

    }

    struct Prune: ParsableCommand {
        static let exitCodes: [(ExitStatus, String)] = [
            (.success, "pruned, or nothing to prune"),
            (.inputMissing, "there is no snapshots folder"),
            (.cannotWrite, "the snapshots folder cannot be written (read-only, permissions); nothing is removed"),
            (.ioError, "an I/O error"),
            (.locked, "another run holds the lock"),
        ] + ExitStatus.always
        static let configuration = CommandConfiguration(abstract: "Delete all but the newest N versions; current is always kept.",
                                                        discussion: ExitStatus.helpText(exitCodes))
        @OptionGroup var location: Location
        @Option(name: .long, help: "How many versions to keep.")
        var keep: Int

        @Flag(name: .long, help: "Only say which versions would be removed.")
        var dryRun = false

        func validate() throws {
            guard keep >= 1 else { throw ValidationError("--keep must be at least 1") }
        }

        func run() throws {
            try location.requireFolder()
            if !dryRun { try ServiceUser.require(snapshots: location.snapshots) }
            try location.guarded {
                let removed = try location.locked { try SnapshotPublisher(directory: location.directory).prune(keep: keep, dryRun: dryRun) }
                print(removed.isEmpty ? "nothing to prune" : "\(dryRun ? "would remove" : "removed"): \(removed.joined(separator: ", "))")
            }
        }
    }

    struct Verify: ParsableCommand {
        static let exitCodes: [(ExitStatus, String)] = [
            (.success, "the version passes the check and matches its manifest's SHA-256"),
            (.inputMissing, "there is no such version, or no current"),
            (.integrityFailure, "it fails the check or its SHA-256 differs from the manifest's"),
        ] + ExitStatus.always
        static let configuration = CommandConfiguration(
            abstract: "Check a version (default: current): its manifest's SHA-256, quick_check, every index against its table; --full adds integrity_check.",
            discussion: ExitStatus.helpText(exitCodes))
        @OptionGroup var location: Location
        @Argument(help: "The version to verify.")
        var version: String?
        @Flag(name: .long, help: "Also run PRAGMA integrity_check (one lookup per row in every index: minutes on a national snapshot).")
        var full = false

        func run() throws {
            let directory = location.directory
            guard let version = try version.map(location.existing) ?? directory.currentVersion() else {
                printError("ingest: \(location.snapshots) has no current snapshot")
                throw ExitStatus.inputMissing.exitCode
            }
            var problems: [String] = []
            let path = directory.snapshotPath(version)
            do {
                // The search index passed FTS5's integrity-check before publishing; the SHA-256 below shows the file unchanged since.
                if let findings = try PublishCheck.problems(path: path) { problems.append(findings) }
                if full {
                    let database = try SQLiteDatabase(path: path, readOnly: true)
                    if let findings = try SnapshotIntegrityCheck.problems(in: database) { problems.append("integrity_check: \(findings)") }
                    try database.close()
                }
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
                print("\(version): ok (quick_check ok, every index matches its table\(full ? ", integrity_check ok" : ""), SHA-256 matches the manifest)")
            } else {
                print("\(version): FAILED")
                problems.forEach { print("  \($0)") }
                throw ExitStatus.integrityFailure.exitCode
            }
        }
    }

    struct Diff: ParsableCommand {
        static let exitCodes: [(ExitStatus, String)] = [
            (.success, "the changes were printed"),
            (.inputMissing, "there is no such version"),
            (.ioError, "a snapshot cannot be read"),
        ] + ExitStatus.always
        static let configuration = CommandConfiguration(abstract: "What changed from version A to version B.",
                                                        discussion: ExitStatus.helpText(exitCodes))
        @OptionGroup var location: Location
        @Argument(help: "The older version (or previous, or current).") var from: String
        @Argument(help: "The newer version (or current).") var to: String
        @Flag(name: .long, help: "Print JSON instead of text.") var json = false

        func run() throws {
            let (from, to) = (try location.existing(from), try location.existing(to))
            let directory = location.directory
            var computed: SnapshotDiff?
            try location.guarded {
                computed = try SnapshotDiff.compute(old: directory.snapshotPath(from), oldLabel: from, new: directory.snapshotPath(to), newLabel: to)
            }
            guard let diff = computed else { return }
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

    /// `snapshots changeset FROM TO --out FILE`: what an offline client holding FROM downloads to have TO.
    struct Changeset: ParsableCommand {
        static let exitCodes: [(ExitStatus, String)] = [
            (.success, "the changeset was written"),
            (.schemaMismatch, "the versions have different schemas: no changeset joins them (a client downloads the whole snapshot); nothing is written"),
            (.inputMissing, "there is no such version"),
            (.cannotWrite, "the changeset file cannot be written"),
            (.ioError, "a snapshot cannot be read"),
        ] + ExitStatus.always
        static let configuration = CommandConfiguration(
            abstract: "Write a changeset (SQLite's session format) that turns version FROM into version TO.",
            discussion: "The nightly changesets between the two versions are combined where they join them; otherwise the two files are diffed. "
                + "Apply it to a copy of FROM with sqlite3changeset_apply (or `sqlite3 FROM` and the session extension's tools). "
                + ExitStatus.helpText(exitCodes))
        @OptionGroup var location: Location
        @Argument(help: "The version the client holds.") var from: String
        @Argument(help: "The version it should have.") var to: String
        @Option(name: .long, help: "The changeset file to write.") var out: String

        func validate() throws {
            if let refusal = OutputFile.refusal(of: out, protecting: location.snapshots) { throw ValidationError("--out \(refusal)") }
        }

        func run() throws {
            let (from, to) = (try location.existing(from), try location.existing(to))
            let directory = location.directory
            var changeset: Data?
            try location.guarded {
                do {
                    // The nights' own changesets where they join the two versions; a diff of the two files where they do not.
                    do {
                        changeset = try ChangesetChain.changeset(from: from, to: to, in: directory)
                    } catch let damaged as ChangesetChain.Damaged {
                        printError("ingest: \(damaged); diffing the two snapshots instead")
                    }
                    if changeset == nil {
                        changeset = try SnapshotChangeset.make(from: directory.snapshotPath(from), to: directory.snapshotPath(to))
                    }
                } catch let mismatch as SnapshotChangeset.SchemaMismatch {
                    printError("ingest: no changeset from \(from) to \(to): \(mismatch)")
                    throw ExitStatus.schemaMismatch.exitCode
                }
            }
            guard let changeset else { return }
            do { try OutputFile.write(changeset, to: out) } catch {
                printError("ingest: the changeset cannot be written to \(out): \(error)")
                throw ExitStatus.cannotWrite.exitCode
            }
            // For the message only: a size that cannot be read is left out.
            let size = (try? FileManager.default.attributesOfItem(atPath: directory.snapshotPath(to))[.size] as? Int) ?? nil
            print("\(from) → \(to): \(changeset.count) bytes" + (size.map { " (the snapshot is \($0) bytes)" } ?? "")
                + ", sha-256 \(ChangesetDigest(of: changeset).hex)")
        }
    }
}
