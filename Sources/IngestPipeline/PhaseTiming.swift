import Foundation
import IngestCore
import Logging

/// How long one phase of a run took: logged as it ends (where a slow night
/// went, on stderr) and kept for the reports.
public struct PhaseTiming: Sendable, Equatable {
    public var phase: String
    public var seconds: Double

    public init(phase: String, seconds: Double) {
        self.phase = phase
        self.seconds = seconds
    }
}

/// Times the run's phases one after another, and tells `announce` as each begins.
struct PhaseClock {
    let logger: Logger
    let announce: ((RunProgress) -> Void)?
    var last = Date()
    private(set) var laps: [PhaseTiming] = []

    init(logger: Logger, announce: ((RunProgress) -> Void)? = nil) {
        self.logger = logger
        self.announce = announce
    }

    func begin(_ phase: String) {
        announce?(RunProgress(phase: phase))
    }

    mutating func lap(_ phase: String) {
        let now = Date()
        let seconds = MachineTime.seconds(now.timeIntervalSince(last))
        logger.info("phase done", metadata: ["event": "phase_done", "phase": "\(phase)", "seconds": .stringConvertible(seconds)])
        laps.append(PhaseTiming(phase: phase, seconds: seconds))
        last = now
    }
}
