import ArgumentParser

/// Every exit code `ingest` uses, in one place: `--help` and the README list
/// them from here, and the CLI tests check each one.
enum ExitStatus: Int32, CaseIterable {
    case success = 0
    case internalError = 1
    case wouldChange = 2
    case gateFailed = 3
    case fileRejected = 4
    case outputNotWritten = 5
    case usage = 64
    case emptyResult = 65
    case inputMissing = 66
    case integrityFailure = 70
    case cannotWrite = 73
    case ioError = 74
    case locked = 75
    case configuration = 78

    /// `snapshots changeset` across schemas: the data is not of a form a changeset can carry (65, EX_DATAERR, as for an empty result).
    static let schemaMismatch = ExitStatus.emptyResult

    var meaning: String {
        switch self {
        case .success: return "the snapshot was published (or the dry run finished)"
        case .internalError: return "an unexpected internal error"
        case .wouldChange: return "--dry-run --detailed-exitcode: the run would publish new data"
        case .gateFailed: return "a quality gate failed; nothing was published (--force overrides)"
        case .fileRejected: return "check: a file would be rejected whole or is unrecognised"
        case .outputNotWritten: return "published, but an HTML report, --report or --metrics-file not written"
        case .usage: return "the command line is wrong"
        case .emptyResult: return "no stock feed loaded, or none loaded an offer; nothing was published"
        case .inputMissing: return "a named input is missing (mappings folder, file, version)"
        case .integrityFailure: return "current unreadable or new snapshot failed its check; nothing published"
        case .cannotWrite: return "the snapshots directory cannot be written (permissions, read-only)"
        case .ioError: return "an I/O error such as a full disk; nothing was published"
        case .locked: return "another run holds the snapshots directory's lock"
        case .configuration: return "a mapping, rule file or adapter set-up is invalid"
        }
    }

    var exitCode: ExitCode { ExitCode(rawValue) }

    static var helpText: String { helpText(allCases.map { ($0, $0.meaning) }) }

    /// One subcommand's codes, each with what it means there (1 and 64 hold everywhere).
    static func helpText(_ codes: [(ExitStatus, String)]) -> String {
        "Exit codes:\n" + codes.map { "  \(String($0.0.rawValue).padding(toLength: 4, withPad: " ", startingAt: 0)) \($0.1)" }
            .joined(separator: "\n")
    }

    /// The codes every subcommand may end with, after its own.
    static let always: [(ExitStatus, String)] = [(.internalError, internalError.meaning), (.usage, usage.meaning)]
}

import Foundation
