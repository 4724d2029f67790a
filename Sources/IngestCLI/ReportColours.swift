import Foundation
import Rainbow

/// Colour for the printed report on a terminal: the verdict green, red or
/// blue, section titles bold, what failed red, what was kept or forced
/// yellow. Applied to finished lines, token by token, so that the columns
/// the formatter measured stay where they are; cron, pipes and `NO_COLOR`
/// get the plain text (Rainbow's own check of stdout and the environment).
enum ReportColours {
    static func apply(_ report: String) -> String {
        guard isatty(STDOUT_FILENO) == 1 else { return report }
        return report.split(separator: "\n", omittingEmptySubsequences: false).map { colour(String($0)) }.joined(separator: "\n")
    }

    static func colour(_ line: String) -> String {
        if line.hasPrefix("PUBLISHED") || line.hasPrefix("published ") { return line.green.bold }
        if line.hasPrefix("NOT PUBLISHED") || line.hasPrefix("WOULD NOT PUBLISH") { return line.red.bold }
        if line.hasPrefix("DRY RUN") || line.hasPrefix("would publish") { return line.blue.bold }
        if line.hasPrefix("FILE ") || (!line.hasPrefix(" ") && line.hasSuffix(":")) { return line.bold }
        var line = line.replacing(/\s(rejected|skipped|unrecognised)(\s\([a-z_]+\))?/) { match in
            let outcome = String(match.output.0)
            return match.output.1 == "rejected" ? outcome.red : outcome.yellow
        }
        for (token, paint) in [(" FAILED", { (text: String) in text.red.bold }), ("FORCED", { $0.yellow.bold }), ("DROPPED", { $0.red }),
                               ("stale since", { $0.yellow })] {
            line = line.replacingOccurrences(of: token, with: paint(token))
        }
        return line
    }
}
