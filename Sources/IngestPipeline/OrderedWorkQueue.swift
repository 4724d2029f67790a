import Foundation

/// Hands out task indexes to worker threads and gives their results back to
/// one consumer in index order, with at most `window` results finished or
/// under way ahead of the consumer: parse threads run ahead of the writer,
/// but never so far that memory grows with the number of feeds.
final class OrderedWorkQueue<Result: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var finished: [Int: Result] = [:]
    private var nextToClaim = 0
    private var nextToTake = 0
    private var cancelled = false
    let count: Int
    let window: Int

    init(count: Int, window: Int) {
        self.count = count
        self.window = max(1, window)
    }

    /// The next task for a worker, or nil when there is none left. Blocks
    /// while the window ahead of the consumer is full.
    func claim() -> Int? {
        condition.lock()
        defer { condition.unlock() }
        while !cancelled, nextToClaim < count, nextToClaim >= nextToTake + window {
            condition.wait()
        }
        guard !cancelled, nextToClaim < count else { return nil }
        defer { nextToClaim += 1 }
        return nextToClaim
    }

    func finish(_ index: Int, _ result: Result) {
        condition.lock()
        finished[index] = result
        condition.broadcast()
        condition.unlock()
    }

    /// The next result in index order; nil after the last one.
    func take() -> Result? {
        condition.lock()
        defer { condition.unlock() }
        guard nextToTake < count, !cancelled else { return nil }
        while finished[nextToTake] == nil { condition.wait() }
        let result = finished.removeValue(forKey: nextToTake)
        nextToTake += 1
        condition.broadcast()
        return result
    }

    /// Stops handing out work (the consumer failed); workers finish their task and exit.
    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    /// Runs `work` on `threads` threads over every index; results come back
    /// through `take()`. Returns a group to wait on for the threads to end.
    func start(threads: Int, work: @escaping @Sendable (Int) -> Result) -> DispatchGroup {
        let group = DispatchGroup()
        for number in 0..<max(1, threads) {
            group.enter()
            let thread = Thread { [self] in
                while let index = claim() { finish(index, work(index)) }
                group.leave()
            }
            thread.name = "ingest-parse-\(number)"
            thread.stackSize = 8 << 20
            thread.start()
        }
        return group
    }
}
