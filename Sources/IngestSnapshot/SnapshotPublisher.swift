import Foundation
import IngestCore

/// Turns a finished staging file into the published `current` snapshot.
///
/// Order is what makes a crash harmless: check, fsync, manifest and rejects,
/// then the snapshot's own name (link, never replacing), then `current`
/// switched by renaming a new symlink over it, then the directory fsynced.
/// Until the rename of `current`, readers see only the old snapshot; after
/// it, only the new, complete one.
public struct SnapshotPublisher {
    /// The points at which tests inject failures (`faultInjector`).
    public enum Step: String, Sendable, CaseIterable {
        case afterIntegrityCheck, afterManifest, afterRename, beforeSwitch
    }

    public struct IntegrityFailure: Error, CustomStringConvertible {
        public let findings: String
        public init(findings: String) { self.findings = findings }
        public var description: String { "the new snapshot failed its check before publishing: \(findings); nothing was published" }
    }

    public let directory: SnapshotDirectory
    /// How many versions to keep; `current` is always kept.
    public let retention: Int
    public var faultInjector: (@Sendable (Step) throws -> Void)?

    public init(directory: SnapshotDirectory, retention: Int = 7) {
        self.directory = directory
        self.retention = max(1, retention)
    }

    /// Everything the publisher needs besides the staging file.
    public struct Publication {
        public var version: String
        /// Builds the manifest once the snapshot's size and digest are known.
        public var manifest: (Manifest.SnapshotFile) -> Manifest
        /// The writer's digest of the offers it inserted; the file must hold exactly these.
        public var offers: TableDigest?
        /// Tables the check scanned while the writer built the indexes (`EarlyTableScan`).
        public var scanned: [EarlyTableScan] = []
        /// `PRAGMA integrity_check` as well (one lookup per row in every index: several times slower).
        public var fullCheck = false
        /// Datasette's metadata for the snapshot (`DatasetteMetadata`), written beside it.
        public var datasetteMetadata: Data?
        /// The run's HTML report for the version, before `current` switches:
        /// a run killed after the switch still leaves the version its report.
        public var reportPage: (() throws -> Data)?
        /// The changeset from the version before, made by the night: published as `<version>.changeset`.
        public var changeset: Changeset?
        /// Write the run's rejects (warnings) file, durably, at the path given.
        public var rejects: (String) throws -> Void
        public var warnings: (String) throws -> Void

        public struct Changeset {
            public var path: String
            public var from: String
            public var written: ChangesetWriter.Written

            public init(path: String, from: String, written: ChangesetWriter.Written) {
                self.path = path
                self.from = from
                self.written = written
            }
        }

        public init(version: String, manifest: @escaping (Manifest.SnapshotFile) -> Manifest,
                    rejects: @escaping (String) throws -> Void, warnings: @escaping (String) throws -> Void) {
            self.version = version
            self.manifest = manifest
            self.rejects = rejects
            self.warnings = warnings
        }
    }

    /// Publishes `stagingPath` as `publication.version`; returns its manifest.
    /// On any error the staging file and every sidecar of the version are
    /// removed and `current` is untouched.
    public func publish(stagingPath: String, _ publication: Publication) throws -> Manifest {
        let version = publication.version
        let finalPath = directory.snapshotPath(version)
        var created: [String] = [stagingPath] + (publication.changeset.map { [$0.path] } ?? [])
        do {
            // The file no longer changes: its fsync and digest run on the
            // other core while this one runs the integrity check, the
            // longest step of a publish. Nothing is published unless both succeed.
            let seal = StagingFileSeal(path: stagingPath)
            let problems: String?
            let contentDigests: [String: String]
            do {
                let outcome = try PublishCheck.check(path: stagingPath, offers: publication.offers,
                                                     scanned: publication.scanned)
                var found = outcome.problems
                contentDigests = outcome.contentDigests
                if publication.fullCheck {
                    let database = try SQLiteDatabase(path: stagingPath, readOnly: true)
                    if let full = try SnapshotIntegrityCheck.problems(in: database) {
                        found = [found, "integrity_check: \(full)"].compactMap { $0 }.joined(separator: "; ")
                    }
                    try database.close()
                }
                problems = found
            } catch {
                _ = try? seal.wait()
                throw error
            }
            // Always wait for the sealing thread (it reads the file that a
            // failure unlinks); a failed check outranks a failed fsync.
            let sealing = Result { try seal.wait() }
            if let problems { throw IntegrityFailure(findings: problems) }
            let sealed = try sealing.get()
            try faultInjector?(.afterIntegrityCheck)

            let snapshotFile = Manifest.SnapshotFile(file: "\(version).sqlite", size: sealed.size, sha256: sealed.sha256)
            var manifest = publication.manifest(snapshotFile)
            manifest.contentDigests = contentDigests
            if let changeset = publication.changeset {
                // Synced when written; its name, like the snapshot's, is never reused.
                let published = directory.changesetPath(version)
                guard link(changeset.path, published) == 0 else { throw POSIXFailure(operation: "link to", path: published) }
                created.append(published)
                unlink(changeset.path)
                manifest.changeset = Manifest.ChangesetFile(from: changeset.from, file: directory.changesetName(version),
                                                            size: changeset.written.size, sha256: changeset.written.sha256)
            }

            let rejectsPath = "\(directory.path)/\(directory.rejectsName(version))"
            let warningsPath = "\(directory.path)/\(directory.warningsName(version))"
            created += [rejectsPath, warningsPath, directory.manifestPath(version)]
            try publication.rejects(rejectsPath)
            try publication.warnings(warningsPath)
            if let metadata = publication.datasetteMetadata {
                created.append(directory.datasettePath(version))
                try DurableFile.write(metadata, to: directory.datasettePath(version))
            }
            if let reportPage = publication.reportPage {
                created.append(directory.reportPath(version))
                try DurableFile.write(try reportPage(), to: directory.reportPath(version))
            }
            try DurableFile.write(manifest.encoded(), to: directory.manifestPath(version))
            try faultInjector?(.afterManifest)

            // link() fails if the name exists: a version is never overwritten.
            guard link(stagingPath, finalPath) == 0 else { throw POSIXFailure(operation: "link to", path: finalPath) }
            created.append(finalPath)
            unlink(stagingPath)
            try DurableFile.fsync(path: directory.path)
            try faultInjector?(.afterRename)

            try faultInjector?(.beforeSwitch)
            try switchCurrent(to: version)
            return manifest
        } catch {
            for path in created { unlink(path) }
            throw error
        }
    }

    /// Points `current` at `version` atomically: a new symlink renamed over the old.
    public func switchCurrent(to version: String) throws {
        let temporary = "\(directory.path)/.current-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        guard symlink("\(version).sqlite", temporary) == 0 else { throw POSIXFailure(operation: "symlink", path: temporary) }
        guard rename(temporary, directory.currentPath) == 0 else {
            let failure = POSIXFailure(operation: "rename over", path: directory.currentPath)
            unlink(temporary)
            throw failure
        }
        try DurableFile.fsync(path: directory.path)
    }

    /// Deletes the oldest versions beyond `retention`, never `current`.
    /// Returns the versions removed.
    @discardableResult
    /// `dryRun`: only say which versions would go.
    public func prune(keep: Int? = nil, dryRun: Bool = false) throws(POSIXFailure) -> [String] {
        let keep = max(1, keep ?? retention)
        let current = directory.currentVersion()
        let versions = try directory.versions()
        guard versions.count > keep else { return [] }
        var removed: [String] = []
        for version in versions.dropLast(keep) where version != current {
            if dryRun {
                removed.append(version)
                continue
            }
            unlink(directory.snapshotPath(version))
            for sidecar in directory.sidecarPaths(version) { unlink(sidecar) }
            removed.append(version)
        }
        return removed
    }
}

/// One JSON object a line: the rejects and warnings files.
public enum JSONLines {
    public static func encode<T: Encodable>(_ values: [T]) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = Data()
        for value in values {
            data.append(try encoder.encode(value))
            data.append(10)
        }
        return data
    }
}
