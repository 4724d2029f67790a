import Foundation

/// Waiting for something another process does, with an end: a test that
/// polls without a limit hangs CI instead of failing it. The limit is
/// generous (a loaded machine is slow, not broken) and says what was awaited.
public enum Polling {
    public struct TimedOut: Error, CustomStringConvertible {
        public let what: String
        public let seconds: Double
        public var description: String { "gave up after \(seconds) s waiting for \(what)" }
    }

    /// Asks `condition` every `interval` seconds until it holds; throws
    /// `TimedOut` after `seconds`.
    public static func until(_ what: String, seconds: Double = 120, interval: Double = 0.005,
                             _ condition: () async throws -> Bool) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while try await !condition() {
            guard Date() < deadline else { throw TimedOut(what: what, seconds: seconds) }
            try await Task.sleep(for: .seconds(interval))
        }
    }
}
