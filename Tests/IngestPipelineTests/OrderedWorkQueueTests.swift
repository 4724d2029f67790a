import Dispatch
import Foundation
import Testing
@testable import IngestPipeline

/// The hand-over between the parse threads and the writer: results in task
/// order whatever order they finish in, never more than `window` ahead of
/// the consumer, and a task past its timeout given up on without waiting.
@Suite struct OrderedWorkQueueTests {
    /// Counts tasks started, and the most that were started but not yet taken.
    final class Tally: @unchecked Sendable {
        private let lock = NSLock()
        private var started = 0
        private var taken = 0
        private(set) var mostAhead = 0
        func start() { lock.withLock { started += 1; mostAhead = max(mostAhead, started - taken) } }
        func take() { lock.withLock { taken += 1 } }
    }

    @Test func resultsComeInTaskOrderAndNeverRunAheadOfTheWindow() {
        let tally = Tally()
        let queue = OrderedWorkQueue<Int>(count: 200, window: 3)
        queue.start(threads: 4) { index in
            tally.start()
            // Later tasks often finish first.
            usleep(UInt32((200 - index) % 7) * 300)
            return index * 10
        }
        var results: [Int] = []
        while let result = queue.take() {
            results.append(result)
            tally.take()
        }
        queue.wait()
        #expect(results == (0..<200).map { $0 * 10 })
        // At most `window` ahead of the queue's own count of results taken;
        // the consumer counts a take just after the queue does, hence + 1.
        #expect(tally.mostAhead <= 3 + 1, "at most `window` tasks under way or finished ahead of the consumer")
    }

    @Test func aTaskPastItsTimeoutIsGivenUpAndTheOthersGoOn() {
        let release = DispatchSemaphore(value: 0)
        defer { release.signal() }
        // Two seconds: ample for the quick tasks on a busy machine.
        let queue = OrderedWorkQueue<String>(count: 5, window: 2, timeout: 2) { "timed out \($0)" }
        queue.start(threads: 2) { index in
            if index == 1 { _ = release.wait(timeout: .now() + 60) } // stuck where nothing can interrupt it
            return "done \(index)"
        }
        var results: [String] = []
        while let result = queue.take() { results.append(result) }
        queue.wait() // does not wait for the thread left behind
        #expect(results == ["done 0", "timed out 1", "done 2", "done 3", "done 4"])
    }

    @Test func cancellingStopsHandingOutWork() {
        let tally = Tally()
        let queue = OrderedWorkQueue<Int>(count: 1000, window: 2)
        queue.start(threads: 2) { index in
            tally.start()
            return index
        }
        #expect(queue.take() == 0)
        queue.cancel()
        #expect(queue.take() == nil)
        queue.wait()
        #expect(tally.mostAhead <= 2 + 1)
    }
}
