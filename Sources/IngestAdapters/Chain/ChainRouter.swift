import Foundation
import IngestCore
import Synchronization

/// Sends each row of a chain file to its pharmacy's part, creating parts as
/// new pharmacy ids appear, in whatever order the rows come.
///
/// Safe to share between the threads of one split (`lanes`): an adapter may
/// hand rows to several threads, as long as all rows of one pharmacy go to
/// the same thread in file order (`ChainLanes`), so each part is filled by
/// one thread at a time.
public final class ChainRouter: Sendable {
    public let file: String
    /// Spill files are named `<spillPrefix><n>`: the caller's staging area,
    /// so whatever a killed run leaves is found and removed by the next.
    public let spillPrefix: String
    /// How many threads the adapter may turn the rows into offers on: one
    /// chain file alone in a run would otherwise keep one core busy and the
    /// other idle for seconds.
    public let lanes: Int
    /// The parts by pharmacy id, and the first spill failure.
    private let state = Mutex<(parts: [String: ChainPart], failure: POSIXFailure?)>(([:], nil))

    public init(file: String, spillPrefix: String, lanes: Int = 1) {
        self.file = file
        self.spillPrefix = spillPrefix
        self.lanes = max(1, lanes)
    }

    /// A spill write that failed (a full disk): the run cannot go on.
    public var spillFailure: POSIXFailure? { state.withLock { $0.failure } }

    /// The part of `pharmacyID`, new at its first row.
    func part(_ pharmacyID: String) -> ChainPart {
        state.withLock { state in
            if let part = state.parts[pharmacyID] { return part }
            let part = ChainPart(pharmacyID: pharmacyID, file: file, spillPath: "\(spillPrefix)\(state.parts.count)")
            state.parts[pharmacyID] = part
            return part
        }
    }

    func accept(_ offer: StockOffer, into part: ChainPart) {
        guard spillFailure == nil else { return }
        do throws(POSIXFailure) { try part.accept(offer) } catch { state.withLock { if $0.failure == nil { $0.failure = error } } }
    }

    /// After the last row: every spill flushed, the file's failure given to
    /// every part; the parts in pharmacy id byte order.
    public func finish(fileFailure: FeedFailure?) -> [ChainPart] {
        let sorted = state.withLock { Array($0.parts.values) }.sorted { precedesInByteOrder($0.pharmacyID, $1.pharmacyID) }
        for part in sorted {
            part.fileFailure = fileFailure
            if spillFailure == nil {
                do throws(POSIXFailure) { try part.finishSplit() } catch { state.withLock { $0.failure = error } }
            }
        }
        return sorted
    }
}
