import CSQLite
import Foundation

/// The changeset from a kept version to a newer one out of the nightly
/// changesets between them: each night writes the one from the version
/// before (`<version>.changeset`, its SHA-256 in the manifest), and
/// SQLite's `sqlite3changegroup` combines consecutive ones into one that
/// does what they do in turn (an offer inserted one night and updated the
/// next arrives as one insert). Nothing compares two snapshot files, so a
/// server answers a client of last week in the time it takes to read the
/// week's changesets.
public enum ChangesetChain {
    /// A changeset file that does not match its manifest: it is never sent.
    public struct Damaged: Error, CustomStringConvertible {
        public var version: String
        public var reason: String
        public var description: String { "the changeset that made version \(version) \(reason)" }
    }

    /// The versions whose changesets lead from `from` to `to`, oldest
    /// first, found by following each manifest's `changeset.from` back
    /// from `to`; nil when the chain breaks (a night without a changeset:
    /// a first night, a schema upgrade, a version pruned, a manifest gone).
    public static func links(from: String, to: String, in directory: SnapshotDirectory, limit: Int = 400) -> [String]? {
        var versions: [String] = []
        var version = to
        while version != from {
            // A version without a readable manifest ends the chain: absence is what "no chain" means here.
            guard versions.count < limit, let manifest = try? directory.readManifest(version), let changeset = manifest.changeset else { return nil }
            versions.append(version)
            version = changeset.from
        }
        return versions.reversed()
    }

    /// One version's nightly changeset, read and checked against its manifest (`OpenChangeset.nightly`).
    public static func nightly(_ version: String, in directory: SnapshotDirectory) throws -> Data {
        try OpenChangeset.nightly(version, in: directory).data()
    }

    /// The changeset from `from` to `to` as `ingest-serve` sends it: the
    /// night's own file for one night, the nights combined into a file
    /// without a name in `temporaryDirectory` for more; nil when no chain joins them.
    public static func openChangeset(from: String, to: String, in directory: SnapshotDirectory, temporaryDirectory: String) throws -> OpenChangeset? {
        guard let versions = links(from: from, to: to, in: directory), !versions.isEmpty else { return nil }
        if versions.count == 1 { return try OpenChangeset.nightly(versions[0], in: directory) }
        return try OpenChangeset.holding(try combine(try versions.map { try nightly($0, in: directory) }), in: temporaryDirectory)
    }

    /// The changeset from `from` to `to`; nil when no chain joins them.
    public static func changeset(from: String, to: String, in directory: SnapshotDirectory) throws -> Data? {
        guard let versions = links(from: from, to: to, in: directory), !versions.isEmpty else { return nil }
        if versions.count == 1 { return try nightly(versions[0], in: directory) }
        return try combine(try versions.map { try nightly($0, in: directory) })
    }

    /// Consecutive changesets as one (`sqlite3changegroup`).
    public static func combine(_ changesets: [Data]) throws -> Data {
        var group: OpaquePointer?
        var code = sqlite3changegroup_new(&group)
        guard code == SQLITE_OK, let group else { throw SQLiteError(code: code, message: "sqlite3changegroup_new failed") }
        defer { sqlite3changegroup_delete(group) }
        for (index, changeset) in changesets.enumerated() {
            var bytes = changeset
            code = bytes.withUnsafeMutableBytes { sqlite3changegroup_add(group, Int32($0.count), $0.baseAddress) }
            guard code == SQLITE_OK else { throw SQLiteError(code: code, message: "changeset \(index + 1) of \(changesets.count) does not combine with those before it") }
        }
        return try SnapshotChangeset.output("sqlite3changegroup_output") { sqlite3changegroup_output(group, &$0, &$1) }
    }
}
