import ArgumentParser
import IngestCore

/// `--currency CODE`: an ISO 4217 code, in any case; anything else is a usage error (exit 64) naming the value.
struct SnapshotCurrencyOption: ExpressibleByArgument, Sendable {
    let code: String

    init(code: String) {
        self.code = code
    }

    init?(argument: String) {
        guard let code = ISO4217.code(argument) else { return nil }
        self.code = code
    }

    var defaultValueDescription: String { code }
}
