import ArgumentParser
import Foundation
import IngestGenerator

/// The generator's options, shared by `generate` and `testdb`.
struct GeneratorOptions: ParsableArguments {
    @Option(name: .long, help: "Number of pharmacies.")
    var pharmacies = 20

    @Option(name: .long, help: "Number of items (each pharmacy stocks all of them).")
    var items = 200

    @Option(name: .long, help: "Seed: the same options and seed give byte-identical feeds.")
    var seed: UInt64 = 1

    @Option(name: .long, help: "Stock feed formats, comma-separated: rax, noom, csv, chain (many pharmacies in one shuffled CSV file), json, fixed (fixed-width lines), dateless (fixed-width lines named transfer_<id>.dat, dated by their modification time), pricelist (the fixed-width lines with no stock column: offers without a quantity).")
    var formats = "rax,noom,csv"

    @Option(name: .long, help: "Share of records written with a fault, 0 to 1 (0: a clean folder).")
    var badRate = 0.0

    @Option(name: .long, help: "A later night of the same seed: exports this many days after the first night's.")
    var daysLater = 0

    @Option(name: .long, help: "Share of lines whose price moves by up to ±30 % against the first night, 0 to 1.")
    var priceChangeRate = 0.0

    @Option(name: .long, help: "Share of lines whose stock level differs from the first night's, 0 to 1 (default: 0.3 with --days-later, as a real night's stock moves; 0 on the first night).")
    var quantityChangeRate: Double?

    @Option(name: .long, help: "Wrong-data faults, comma-separated, one pharmacy each: kroons-as-euro, decimal-slip, duplicate-branch, item-count-collapse, zero-stock (the ground truth holds over the first night of the seed).")
    var wrongData = ""

    @Option(name: .long, help: ArgumentHelp("Folder holding patient_price_rules.toml, copied into the generated mappings (default: ./mappings when it holds one; otherwise none is written, and the import uses its built-in fee periods).", valueName: "dir"))
    var rulesFrom: String?

    func validate() throws {
        guard pharmacies >= 1, items >= 1 else { throw ValidationError("--pharmacies and --items must be at least 1") }
        guard (0...1).contains(badRate) else { throw ValidationError("--bad-rate is a share from 0 to 1") }
        guard (0...1).contains(priceChangeRate) else { throw ValidationError("--price-change-rate is a share from 0 to 1") }
        guard (0...1).contains(quantityChangeRate ?? 0) else { throw ValidationError("--quantity-change-rate is a share from 0 to 1") }
        guard daysLater > 0 || (quantityChangeRate ?? 0) == 0 else { throw ValidationError("--quantity-change-rate needs --days-later: it is against the first night") }
        guard daysLater >= 0 else { throw ValidationError("--days-later cannot be negative") }
        _ = try parsedWrongData()
        _ = try parsedFormats()
        _ = try generatorOptions
    }

    func parsedFormats() throws -> [GeneratedFormat] {
        let names = formats.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        let parsed = names.compactMap(GeneratedFormat.init(rawValue:))
        guard !parsed.isEmpty, parsed.count == names.count else {
            throw ValidationError("--formats takes rax, noom, csv, chain, json, fixed, dateless and pricelist, comma-separated; got '\(formats)'")
        }
        return parsed
    }

    func parsedWrongData() throws -> [WrongDataFault] {
        let names = wrongData.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        return try names.map { name in
            guard let fault = WrongDataFault(rawValue: name) else {
                throw ValidationError("--wrong-data takes \(WrongDataFault.allCases.map(\.rawValue).joined(separator: ", ")); got '\(name)'")
            }
            return fault
        }
    }

    /// The rules file to copy: the one named, or the checkout's, or none
    /// (outside a checkout: the import then uses the built-in fee periods, as it does without a mappings folder).
    var rulesSource: String? {
        if let rulesFrom { return "\(rulesFrom)/patient_price_rules.toml" }
        let checkout = "mappings/patient_price_rules.toml"
        return FileManager.default.fileExists(atPath: checkout) ? checkout : nil
    }

    @Option(name: .long, help: ArgumentHelp("How the medicine register is written: built-in (its own CSV) or estonian (the agency's export, with a mapping that translates Retseptiravim and Käsimüügiravim).", valueName: "layout"))
    var registerLayout = "built-in"

    var generatorOptions: FeedGenerator.Options {
        get throws {
            var options = FeedGenerator.Options(pharmacies: pharmacies, items: items, seed: seed, formats: try parsedFormats(), badRate: badRate,
                                                rulesSource: rulesSource)
            options.daysLater = daysLater
            options.priceChangeRate = priceChangeRate
            options.quantityChangeRate = quantityChangeRate ?? (daysLater > 0 ? 0.3 : 0)
            options.wrongData = try parsedWrongData()
            guard let layout = RegisterLayout(rawValue: registerLayout) else {
                throw ValidationError("--register-layout takes built-in or estonian; got '\(registerLayout)'")
            }
            options.registerLayout = layout
            return options
        }
    }

    /// Generates into `directory`, or exits: 78 without a rules file to copy, 74 on a full disk, 73 when writing fails otherwise.
    /// `exportDay`: the first night's exports, when not the generator's own.
    func generate(into directory: String, exportDay: GeneratedDay? = nil) throws -> GroundTruth {
        do {
            var options = try generatorOptions
            if let exportDay { options.exportDay = exportDay }
            return try FeedGenerator(options: options).generate(into: directory)
        } catch let error as GeneratorError {
            printError("ingest: \(error)")
            if case .missingRules = error { throw ExitStatus.configuration.exitCode }
            if case .diskFull = error { throw ExitStatus.ioError.exitCode }
            throw ExitStatus.cannotWrite.exitCode
        } catch {
            printError("ingest: \(error)")
            throw ExitStatus.cannotWrite.exitCode
        }
    }
}

/// `ingest generate`: a feeds folder of any size with known faults.
struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Write a deterministic feeds folder (OUT/feeds), its mappings (OUT/mappings) and OUT/ground-truth.json.",
        discussion: ExitStatus.helpText(exitCodes)
    )
    static let exitCodes: [(ExitStatus, String)] = [
        (.success, "written"), (.cannotWrite, "OUT cannot be written; nothing is left behind"), (.ioError, "the disk filled up"),
        (.configuration, "no patient price rules to copy (--rules-from)"),
    ] + ExitStatus.always

    @Option(name: .long, help: "Folder to create the feeds, mappings and ground truth in.")
    var out: String

    @OptionGroup var generator: GeneratorOptions

    func run() throws {
        let truth = try generator.generate(into: out)
        let records = truth.feeds.values.reduce(0) { $0 + $1.read }
        // A chain file counts once, whatever its number of pharmacies.
        let files = Set(truth.feeds.keys.map { $0.split(separator: "#").first.map(String.init) ?? $0 }).count
        print("generated \(files) files with \(records) records into \(out)/feeds; mappings in \(out)/mappings; counts in \(out)/ground-truth.json")
    }
}
