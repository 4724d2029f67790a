import Foundation
import IngestSnapshot
import Synchronization

/// `?q=changes&since=VERSION`: the changeset from a client's version to
/// current, out of the nightly changesets the importer wrote beside each
/// version (`ChangesetChain`): yesterday's client gets the night's file as
/// it is, a client further behind the nights between combined. Nothing
/// here compares two snapshot files (that took 12–20 s and a gigabyte
/// mapped on the national snapshot). Made once per pair however many
/// clients ask at once (single flight), and kept for the clients that follow.
///
/// Each nightly file is checked against its manifest's SHA-256 before it is
/// sent or combined: a damaged one is never passed on (the client
/// downloads the whole snapshot). What is sent carries its own SHA-256
/// (`Repr-Digest`), so a client refuses a truncated or altered one before
/// SQLite reads a byte (`ingest snapshots apply`).
public final class ChangesetCache: Sendable {
    public enum Answer: Sendable {
        /// The night's own file, or the nights' combined, read as it is sent (`OpenChangeset`).
        case changeset(OpenChangeset)
        /// The client is on current already: nothing to apply.
        case upToDate
        /// The client's version is no longer kept (or never was, or is damaged, or has another schema): it downloads the whole snapshot.
        case gone(String)
    }

    private struct Pair: Hashable {
        var from, to: String
    }

    private struct State {
        var made: [(pair: Pair, answer: Answer)] = []
        var making: [Pair: Task<Answer, any Error>] = [:]
        var builds = 0
    }

    private let directory: SnapshotDirectory
    /// Where a changeset combined from several nights is written (a file without a name).
    private let temporaryDirectory: String
    private let capacity: Int
    private let work: any BlockingWork
    private let started: @Sendable () -> Void
    private let built: @Sendable (Duration) -> Void
    private let state = Mutex(State())

    /// `work`: where the builds run (a pool of their own, so queries keep
    /// their threads); `started` hears a build begin on that pool and
    /// `built` how long it took, so `/metrics` can say how many are under
    /// way and a test can see queries answered while one is.
    public init(directory: SnapshotDirectory, temporaryDirectory: String = NSTemporaryDirectory(), capacity: Int = 4, work: any BlockingWork,
                started: @escaping @Sendable () -> Void = {}, built: @escaping @Sendable (Duration) -> Void = { _ in }) {
        self.directory = directory
        self.temporaryDirectory = temporaryDirectory
        self.capacity = capacity
        self.work = work
        self.started = started
        self.built = built
    }

    /// Changesets made since the server started (for `/metrics`).
    public var builds: Int { state.withLock { $0.builds } }

    public func answer(since version: String, current: OpenSnapshot) async throws -> Answer {
        if version == current.version { return .upToDate }
        let pair = Pair(from: version, to: current.version)
        // A pair made or being made was listed when it was asked first: the
        // folder is listed (on the builds' pool, not a cooperative thread)
        // only for a pair not seen yet.
        let seen = state.withLock { state in state.making[pair] != nil || state.made.contains { $0.pair == pair } }
        if !seen {
            // Only a listed version names a file: `since` never becomes a path of the client's making.
            let directory = directory
            guard try await work.run({ try directory.versions().contains(version) }) else {
                return .gone("version \(version) is not kept here (current is \(current.version)): download the whole snapshot")
            }
        }
        let task = state.withLock { state -> Task<Answer, any Error> in
            if let made = state.made.first(where: { $0.pair == pair }) { return Task { made.answer } }
            if let making = state.making[pair] { return making }
            let (directory, temporaryDirectory, work, started, built) = (directory, temporaryDirectory, work, started, built)
            let task = Task {
                try await work.run {
                    started()
                    let start = ContinuousClock.now
                    defer { built(ContinuousClock.now - start) }
                    return try Self.make(pair, in: directory, temporaryDirectory: temporaryDirectory)
                }
            }
            state.making[pair] = task
            state.builds += 1
            return task
        }
        let answer: Answer
        do { answer = try await task.value } catch {
            state.withLock { _ = $0.making.removeValue(forKey: pair) }
            throw error
        }
        state.withLock { state in
            guard state.making.removeValue(forKey: pair) != nil else { return }
            state.made.append((pair, answer))
            if state.made.count > capacity { state.made.removeFirst() }
        }
        return answer
    }

    private static func make(_ pair: Pair, in directory: SnapshotDirectory, temporaryDirectory: String) throws -> Answer {
        do {
            guard let file = try ChangesetChain.openChangeset(from: pair.from, to: pair.to, in: directory, temporaryDirectory: temporaryDirectory) else {
                return .gone("no nightly changesets lead from version \(pair.from) to \(pair.to) (a night between them started a new history or a new schema): download the whole snapshot")
            }
            return .changeset(file)
        } catch let damaged as ChangesetChain.Damaged {
            return .gone("\(damaged): download the whole snapshot")
        } catch {
            // A file of the chain that is missing or cannot be read (removed by hand, damaged): the client's way on is the whole snapshot, not a 500.
            return .gone("the changesets from version \(pair.from) cannot be used (\(error)): download the whole snapshot")
        }
    }
}
