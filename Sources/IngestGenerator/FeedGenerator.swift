import Foundation
import IngestCore
import Synchronization

/// `ingest generate`: a complete, deterministic feeds folder per FEEDS.md
/// (`OUT/feeds`), the mappings it needs (`OUT/mappings`) and, beside them,
/// `OUT/ground-truth.json` with the counts an import must report.
public struct FeedGenerator: Sendable {
    public struct Options: Sendable {
        public var pharmacies: Int
        public var items: Int
        public var seed: UInt64
        public var formats: [GeneratedFormat]
        /// Share of records written with a fault (0 for a clean folder).
        public var badRate: Double
        /// The patient price rules file copied into the generated mappings;
        /// nil writes none, and the import uses its built-in fee periods.
        public var rulesSource: String?
        /// The day of the first night's exports (23:00 in Tallinn; kroon-era
        /// RAX feeds keep the end of 2010 unless this is earlier). The
        /// reimbursement list is valid from the first of its year.
        public var exportDay = GeneratedDay(year: 2025, month: 11, day: 20)
        /// The importer's reject-rate gate the ground truth assumes.
        public var maxRejectRatePercent = 5
        /// At most this many pharmacies share one chain file (format `chain`).
        public var pharmaciesPerChainFile = 200
        /// A later night of the same seed: exports this many days on (0: the first night).
        public var daysLater = 0
        /// Share of lines whose price moves by up to ±30 % against the first night.
        public var priceChangeRate = 0.0
        /// Share of lines whose quantity differs from the first night's.
        public var quantityChangeRate = 0.0
        /// Wrong-data faults, each put into one pharmacy's feed; the ground
        /// truth then holds for an import over the first night of this seed.
        public var wrongData: [WrongDataFault] = []
        /// How the medicine register is written: the register's own CSV
        /// (FEEDS.md §11), or the Estonian agency's export read by a mapping (§12.1).
        public var registerLayout = RegisterLayout.builtIn

        public init(pharmacies: Int, items: Int, seed: UInt64, formats: [GeneratedFormat] = [.rax, .noom, .csv],
                    badRate: Double = 0, rulesSource: String?) {
            self.pharmacies = pharmacies
            self.items = items
            self.seed = seed
            self.formats = formats
            self.badRate = badRate
            self.rulesSource = rulesSource
        }
    }

    public let options: Options
    public init(options: Options) { self.options = options }

    /// Noom for half the pharmacies when it is among the formats (it is what
    /// most pharmacies run), the other formats in turn for the rest.
    func format(of index: Int) -> GeneratedFormat {
        let formats = options.formats
        guard formats.count > 1, formats.contains(.noom) else { return formats[index % formats.count] }
        if index % 2 == 0 { return .noom }
        let others = formats.filter { $0 != .noom }
        return others[(index / 2) % others.count]
    }

    public static func pharmacyID(_ index: Int) -> String { String(10_000 + index) }

    public func generate(into out: String) throws -> GroundTruth {
        let feeds = "\(out)/feeds"
        let mappings = "\(out)/mappings"
        // Read before anything is created: a missing rules file leaves no empty folders behind.
        let rules = try options.rulesSource.map { source in
            // Absence is the failure reported here, whatever the read's error.
            guard let rules = try? Data(contentsOf: URL(fileURLWithPath: source)) else { throw GeneratorError.missingRules(source) }
            return rules
        }
        for directory in [feeds, mappings] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        try rules?.write(to: URL(fileURLWithPath: "\(mappings)/patient_price_rules.toml"))
        if options.formats.contains(.csv) || options.formats.contains(.chain) {
            try Data(StockFeedWriter.mapping.utf8).write(to: URL(fileURLWithPath: "\(mappings)/generated_chain.mapping.toml"))
        }
        if options.formats.contains(.json) {
            try Data(StockFeedWriter.jsonMapping.utf8).write(to: URL(fileURLWithPath: "\(mappings)/generated_json.mapping.toml"))
        }
        if options.formats.contains(.dateless) {
            try Data(StockFeedWriter.datelessMapping.utf8).write(to: URL(fileURLWithPath: "\(mappings)/generated_dateless.mapping.toml"))
        }
        if options.formats.contains(.fixed) {
            try Data(StockFeedWriter.fixedMapping.utf8).write(to: URL(fileURLWithPath: "\(mappings)/generated_fixed.mapping.toml"))
        }
        if options.formats.contains(.pricelist) {
            try Data(StockFeedWriter.priceListMapping.utf8).write(to: URL(fileURLWithPath: "\(mappings)/generated_pricelist.mapping.toml"))
        }
        if options.registerLayout == .estonian {
            try Data(ReferenceFileWriter.estonianRegisterMapping.utf8).write(to: URL(fileURLWithPath: "\(mappings)/generated_ravimiregister.mapping.toml"))
        }

        let catalog = GeneratedCatalog(items: options.items, seed: options.seed)
        var truth = GroundTruth(seed: options.seed, pharmacies: options.pharmacies, items: options.items, badRate: options.badRate,
                                formats: options.formats.map(\.rawValue), maxRejectRatePercent: options.maxRejectRatePercent, feeds: [:])
        var reference = ReferenceFileWriter(catalog: catalog, pharmacies: options.pharmacies, seed: options.seed, badRate: options.badRate,
                                            name: Self.pharmacyName)
        reference.listYear = options.exportDay.year
        reference.registerLayout = options.registerLayout
        for (file, counts) in try reference.write(to: feeds) {
            var counts = counts
            // A reference file over the run's reject limit, or rejecting every row, is rejected whole (FEEDS.md §12.1).
            if counts.read > 0, counts.rejected == counts.read || counts.rejected * 100 > options.maxRejectRatePercent * counts.read {
                counts.rejectWhole("too_many_rejects")
            }
            truth.feeds[file] = counts
        }

        var all = (0..<options.pharmacies).map { stockWriter(index: $0, catalog: catalog) }
        for index in all.indices {
            all[index].firstDay = options.exportDay
            all[index].night.daysLater = options.daysLater
            all[index].night.priceChangeRate = options.priceChangeRate
            all[index].night.quantityChangeRate = options.quantityChangeRate
        }
        for (index, fault, copies) in try wrongDataTargets(all) {
            all[index].night.wrongData = fault
            all[index].night.copiesIndex = copies
            truth.wrongData[all[index].fileName] = fault.rawValue
        }
        let writers = all.filter { $0.format != .chain }
        let chainPharmacies = all.filter { $0.format == .chain }
        let chains = stride(from: 0, to: chainPharmacies.count, by: max(1, options.pharmaciesPerChainFile)).enumerated().map { number, start in
            ChainFeedWriter(pharmacies: Array(chainPharmacies[start..<min(start + options.pharmaciesPerChainFile, chainPharmacies.count)]),
                            seed: options.seed, number: number + 1)
        }
        let results = ResultSlots(count: writers.count + chains.count)
        let maxRejectRate = options.maxRejectRatePercent
        DispatchQueue.concurrentPerform(iterations: writers.count + chains.count) { index in
            if index < writers.count {
                results.set(index, Result { [writers[index].fileName: try writers[index].write(to: feeds, maxRejectRate: maxRejectRate)] })
            } else {
                results.set(index, Result { try chains[index - writers.count].write(to: feeds, maxRejectRate: maxRejectRate) })
            }
        }
        for result in results.values { truth.feeds.merge(try result!.get()) { _, new in new } }

        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(truth).write(to: URL(fileURLWithPath: "\(out)/ground-truth.json"))
        return truth
    }

    static func pharmacyName(_ index: Int) -> String {
        var random = SeededRandom(seed: UInt64(index), stream: 7)
        return "APTEEK " + GeneratedCatalog.word(&random, syllables: 3).uppercased()
    }

    /// Which pharmacy gets each wrong-data fault: the kroons a RAX feed (the
    /// one format with a currency in its header), the others Noom feeds,
    /// from the highest index down, away from the feeds broken whole; a
    /// duplicated branch copies the next Noom pharmacy below it.
    private func wrongDataTargets(_ writers: [StockFeedWriter]) throws -> [(index: Int, fault: WrongDataFault, copies: Int?)] {
        var free = writers.indices.reversed().filter { writers[$0].wholeFault == nil }
        func take(_ format: GeneratedFormat) throws -> Int {
            guard let index = free.first(where: { writers[$0].format == format }) else {
                throw GeneratorError.tooFewPharmacies("no \(format.rawValue) pharmacy left for a wrong-data fault; generate more pharmacies")
            }
            free.removeAll { $0 == index }
            return index
        }
        var targets: [(Int, WrongDataFault, Int?)] = []
        for fault in options.wrongData {
            switch fault {
            case .kroonsAsEuro: targets.append((try take(.rax), fault, nil))
            case .duplicateBranch:
                let copy = try take(.noom)
                targets.append((copy, fault, try take(.noom)))
            default: targets.append((try take(.noom), fault, nil))
            }
        }
        return targets
    }

    /// With faults on, the first feeds of each format are broken whole, one
    /// way each, so every feed-level reason appears once.
    private func stockWriter(index: Int, catalog: GeneratedCatalog) -> StockFeedWriter {
        let format = format(of: index)
        var whole: StockFeedWriter.WholeFault?
        if options.badRate > 0 {
            let nth = (0..<index).filter { self.format(of: $0) == format }.count
            switch (format, nth) {
            case (.rax, 0): whole = .truncated
            case (.rax, 1): whole = .unsupportedVersion
            case (.noom, 0): whole = .summaryMismatch
            case (.noom, 1): whole = .malformed
            case (.noom, 2): whole = .unsafe
            case (.csv, 0): whole = .renamedHeader
            case (.json, 0): whole = .truncatedJSON
            default: whole = nil
            }
        }
        return StockFeedWriter(catalog: catalog, pharmacyID: Self.pharmacyID(index), pharmacyName: Self.pharmacyName(index), index: index,
                               format: format, badRate: options.badRate, wholeFault: whole, seed: options.seed)
    }
}

/// Results of the parallel writers, by index.
private final class ResultSlots: Sendable {
    private let slots: Mutex<[Result<[String: GroundTruth.Feed], Error>?]>
    init(count: Int) { slots = Mutex(Array(repeating: nil, count: count)) }
    func set(_ index: Int, _ value: Result<[String: GroundTruth.Feed], Error>) {
        slots.withLock { $0[index] = value }
    }
    var values: [Result<[String: GroundTruth.Feed], Error>?] { slots.withLock { $0 } }
}

/// A calendar day of the generated exports.
public struct GeneratedDay: Sendable, Equatable, Comparable {
    public var year: Int
    public var month: Int
    public var day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    public static func < (a: GeneratedDay, b: GeneratedDay) -> Bool { (a.year, a.month, a.day) < (b.year, b.month, b.day) }
}
