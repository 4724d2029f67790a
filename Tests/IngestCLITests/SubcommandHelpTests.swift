import IngestTestSupport
import Testing
@testable import IngestCLI

@Suite struct SubcommandHelpTests {
    /// Each subcommand's --help lists its own exit codes only (issue 35):
    /// the codes under "Exit codes:" are exactly those it declares.
    @Test(arguments: [("adapters", AdaptersCommand.exitCodes), ("check", CheckCommand.exitCodes),
                      ("generate", GenerateCommand.exitCodes), ("testdb", TestDatabaseCommand.exitCodes)])
    func eachSubcommandListsItsOwnExitCodes(name: String, codes: [(IngestCLI.ExitStatus, String)]) throws {
        let help = try CommandRunner.ingest([name, "--help"])
        #expect(help.status == 0)
        let lines = help.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex(of: "Exit codes:"))
        let listed = lines[(start + 1)...].prefix { !$0.isEmpty }.compactMap { line -> Int32? in
            line.hasPrefix("  ") ? Int32(line.split(separator: " ").first ?? "") : nil
        }
        #expect(listed == codes.map(\.0.rawValue), "\(name) --help")
    }
}
