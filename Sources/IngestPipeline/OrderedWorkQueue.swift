import Foundation

/// Hands out task indexes to worker threads and gives their results back to
/// one consumer in index order, with at most `window` results finished or
/// under way ahead of the consumer: parse threads run ahead of the writer,
/// but never so far that memory grows with the number of feeds.
///
/// With a `timeout`, a task still running that long after a worker claimed
/// it is given up: the consumer gets `timedOut(index)` in its place and a
/// new worker takes the old one's seat. The old thread cannot be stopped
/// from outside (it may be deep in libxml2); it runs on unseen, its result
/// is dropped, and nothing waits for it, so the run ends on time and the
/// process's exit ends the thread.
///
/// `@unchecked`: every var is guarded by `condition`, which workers and the
/// consumer wait on; a `Mutex` has no wait.
final class OrderedWorkQueue<Result: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var finished: [Int: Result] = [:]
    private var nextToClaim = 0
    private var nextToTake = 0
    private var cancelled = false
    /// When each running task was claimed.
    private var claimedAt: [Int: Date] = [:]
    /// Tasks given up on while their worker still runs them.
    private var abandoned: Set<Int> = []
    /// Workers that have not ended and were not given up on.
    private var liveWorkers = 0
    private var work: (@Sendable (Int) -> Result)?
    private var workersStarted = 0
    let count: Int
    let window: Int
    let timeout: TimeInterval?
    /// The result that stands in for a task given up on.
    let timedOut: (Int) -> Result

    init(count: Int, window: Int, timeout: TimeInterval? = nil, timedOut: @escaping (Int) -> Result = { _ in fatalError("no timeout set") }) {
        self.count = count
        self.window = max(1, window)
        self.timeout = timeout
        self.timedOut = timedOut
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
        if timeout != nil { claimedAt[nextToClaim] = Date() }
        return nextToClaim
    }

    /// Hands a result over; false when the task was given up on, and the
    /// worker that ran it must end (another has its seat).
    func finish(_ index: Int, _ result: Result) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if abandoned.remove(index) != nil { return false }
        claimedAt[index] = nil
        finished[index] = result
        condition.broadcast()
        return true
    }

    /// The next result in index order; nil after the last one.
    func take() -> Result? {
        condition.lock()
        defer { condition.unlock() }
        guard nextToTake < count, !cancelled else { return nil }
        while finished[nextToTake] == nil {
            guard let timeout, let started = claimedAt[nextToTake] else {
                condition.wait()
                continue
            }
            let deadline = started.addingTimeInterval(timeout)
            if Date() >= deadline {
                abandon(nextToTake)
                finished[nextToTake] = timedOut(nextToTake)
            } else {
                // Woken early or at the deadline alike: the loop looks again.
                _ = condition.wait(until: deadline)
            }
        }
        let result = finished.removeValue(forKey: nextToTake)
        nextToTake += 1
        condition.broadcast()
        return result
    }

    /// Under the lock: gives up on a running task and seats a new worker.
    private func abandon(_ index: Int) {
        abandoned.insert(index)
        claimedAt[index] = nil
        liveWorkers -= 1
        startWorker()
    }

    /// Stops handing out work (the consumer failed); workers finish their task and exit.
    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    /// Runs `work` on `threads` threads over every index; results come back
    /// through `take()`. `wait()` then waits for the threads to end.
    func start(threads: Int, work: @escaping @Sendable (Int) -> Result) {
        condition.lock()
        defer { condition.unlock() }
        self.work = work
        for _ in 0..<max(1, threads) { startWorker() }
    }

    /// Waits for every worker that was not given up on.
    func wait() {
        condition.lock()
        defer { condition.unlock() }
        while liveWorkers > 0 { condition.wait() }
    }

    /// Under the lock.
    private func startWorker() {
        guard let work else { return }
        liveWorkers += 1
        let thread = Thread { [self] in
            while let index = claim() {
                guard finish(index, work(index)) else { return } // given up on: not live any more
            }
            condition.lock()
            liveWorkers -= 1
            condition.broadcast()
            condition.unlock()
        }
        thread.name = "ingest-parse-\(workersStarted)"
        workersStarted += 1
        thread.stackSize = 8 << 20
        thread.start()
    }
}
