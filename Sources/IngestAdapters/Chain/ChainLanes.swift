import Foundation

/// Rows of a chain file turned into offers on several threads. The reading
/// thread parses and decodes (libcsv and UTF-8, about a third of the work);
/// each row then goes to the lane of its pharmacy, a hash of the id, where
/// it is checked, priced and spilled. One pharmacy's rows stay on one lane,
/// in file order, so its part sees them as a single thread would, and its
/// duplicates and rejects come out the same.
///
/// Rows travel in batches, and each lane holds at most `depth` of them: a
/// reader faster than its lanes waits instead of queueing the file.
///
/// `@unchecked`: `pending` is the reading thread's alone, and a lane's queue
/// is guarded by its `condition`, which both sides wait on (a `Mutex` has no
/// wait); `consume` runs only on its lane's thread.
final class ChainLanes<Row: Sendable>: @unchecked Sendable {
    static var batchSize: Int { 512 }
    static var depth: Int { 4 }

    private final class Lane: @unchecked Sendable {
        let condition = NSCondition()
        var queue: [[Row]] = []
        var closed = false
        let done = DispatchSemaphore(value: 0)
    }

    private let lanes: [Lane]
    private var pending: [[Row]]
    private let consume: (Int, Row) -> Void

    /// `consume(lane, row)` runs on the lane's own thread, never on two rows of one lane at once.
    init(count: Int, consume: @escaping (Int, Row) -> Void) {
        lanes = (0..<max(1, count)).map { _ in Lane() }
        pending = Array(repeating: [], count: lanes.count)
        self.consume = consume
        for index in lanes.indices {
            let thread = Thread { [self] in run(index) }
            thread.name = "ingest-chain-lane-\(index)"
            thread.start()
        }
    }

    /// Hands `row` to the lane of `key` (the row's pharmacy id).
    func submit(_ row: Row, key: String) {
        var hasher = Hasher()
        hasher.combine(key)
        let index = Int(UInt(bitPattern: hasher.finalize()) % UInt(lanes.count))
        pending[index].append(row)
        if pending[index].count >= Self.batchSize { send(index) }
    }

    /// Sends what is pending and waits until every lane has consumed all it was given.
    func finish() {
        for index in lanes.indices {
            if !pending[index].isEmpty { send(index) }
            let lane = lanes[index]
            lane.condition.lock()
            lane.closed = true
            lane.condition.broadcast()
            lane.condition.unlock()
        }
        for lane in lanes { lane.done.wait() }
    }

    private func send(_ index: Int) {
        let lane = lanes[index]
        lane.condition.lock()
        while lane.queue.count >= Self.depth { lane.condition.wait() }
        lane.queue.append(pending[index])
        lane.condition.broadcast()
        lane.condition.unlock()
        pending[index] = []
        pending[index].reserveCapacity(Self.batchSize)
    }

    private func run(_ index: Int) {
        let lane = lanes[index]
        while true {
            lane.condition.lock()
            while lane.queue.isEmpty, !lane.closed { lane.condition.wait() }
            if lane.queue.isEmpty {
                lane.condition.unlock()
                break
            }
            let batch = lane.queue.removeFirst()
            lane.condition.broadcast()
            lane.condition.unlock()
            for row in batch { consume(index, row) }
        }
        lane.done.signal()
    }
}
