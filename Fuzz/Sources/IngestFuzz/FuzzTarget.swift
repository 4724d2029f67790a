import Foundation
import IngestAdapters
import IngestCore

/// One libFuzzer entry point for every parser; `INGEST_FUZZ_TARGET` picks
/// which. Each input is handed to the adapter as bytes in memory (a
/// `FeedFile` needs no file) and parsed; beyond "no crash, no hang, no
/// sanitizer report" it checks the invariant every adapter promises:
/// read = accepted + rejected.
enum FuzzTarget: String, CaseIterable {
    case rax, noom, csv, xml, registry, reimbursement, diagnosis, atc, icd10, gs1, register, chain, json, jsonl, fixed
}

private let target = FuzzTarget(rawValue: ProcessInfo.processInfo.environment["INGEST_FUZZ_TARGET"] ?? "") ?? {
    fatalError("set INGEST_FUZZ_TARGET to one of \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))")
}()
private let scratch = NSTemporaryDirectory() + "ingest-fuzz-\(getpid())"
private let csvMapping = try! MappingLoader.load(path: ProcessInfo.processInfo.environment["INGEST_FUZZ_CSV_MAPPING"] ?? "mappings/csv.mapping.toml")
private let xmlMapping = try! MappingLoader.load(path: ProcessInfo.processInfo.environment["INGEST_FUZZ_XML_MAPPING"] ?? "mappings/xml.mapping.toml")
/// The mapping of the json, jsonl or fixed target, from `Fuzz/mappings/<target>.mapping.toml`.
private let ownMapping: StockFeedMapping? = [.json, .jsonl, .fixed].contains(target)
    ? try! MappingLoader.load(path: (ProcessInfo.processInfo.environment["INGEST_FUZZ_MAPPINGS"] ?? "mappings") + "/\(target.rawValue).mapping.toml")
    : nil

private func check<Record>(_ output: FeedOutput<Record>) {
    precondition(output.read == output.accepted + output.rejected, "read \(output.read) != accepted \(output.accepted) + rejected \(output.rejected)")
    // Rejecting the feed whole keeps every record read, as rejects.
    var failed = output
    failed.failure = failed.failure ?? FeedFailure(reason: .badHeader, message: "fuzz")
    let whole = failed.rejectingAll()
    precondition(whole.read == output.read && whole.rejected == output.read && whole.accepted == 0, "rejectingAll lost records")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if target == .diagnosis {
        for item in DiagnosisNotation.parse(String(decoding: bytes, as: UTF8.self)) {
            if case .range(let range) = item { precondition(range.from <= range.to && DiagnosisNotation.isCode(range.from)) }
        }
        return 0
    }
    let file = FeedFile(name: "fuzz", bytes: bytes)
    /// Any adapter, through the one protocol.
    @discardableResult
    func parse<Adapter: FeedAdapter>(_ adapter: Adapter) -> FeedOutput<Adapter.Record> {
        _ = adapter.recognises(file)
        let output = adapter.parse(file)
        check(output)
        return output
    }
    func stock(_ adapter: some StockFeedAdapter) {
        _ = try? adapter.readHeader(file)
        for offer in parse(adapter).records {
            precondition(offer.priceCents >= 0 && (offer.quantity ?? 0) >= 0 && !offer.aptcode.isEmpty)
        }
    }
    /// A chain file split by pharmacy: every row ends in one part or in the file's own output, and each part replays whole.
    func chain(_ adapter: some ChainFeedAdapter) {
        let router = ChainRouter(file: "fuzz", spillPrefix: scratch + ".part-")
        let rest = adapter.split(file, into: router)
        check(rest)
        for part in router.finish(fileFailure: rest.failure) {
            var output = FeedOutput<StockOffer>(file: "fuzz")
            _ = try? part.replay(into: &output)
            check(output)
            unlink(part.spillPath)
        }
    }
    // The mapped adapters below are made from the harness's own mappings, each of the adapter's layout: nil would be the harness's bug.
    switch target {
    case .rax: stock(RAXStockAdapter(maxLineLength: 4096))
    case .noom: stock(NoomStockAdapter())
    case .csv: stock(MappedCSVStockAdapter(mapping: csvMapping)!)
    case .xml: stock(MappedXMLStockAdapter(mapping: xmlMapping)!)
    case .registry: parse(PharmacyRegistryAdapter())
    case .reimbursement: parse(ReimbursementListAdapter())
    case .atc: parse(ATCAdapter())
    case .icd10: parse(ICD10Adapter())
    case .gs1: parse(GS1DatasheetAdapter())
    case .register: parse(MedicineRegisterAdapter())
    case .chain: chain(MappedCSVStockAdapter(mapping: csvMapping)!)
    case .json: stock(MappedJSONStockAdapter(mapping: ownMapping!)!)
    case .jsonl:
        let adapter = MappedJSONStockAdapter(mapping: ownMapping!)!
        stock(adapter)
        chain(adapter)
    case .fixed:
        let adapter = MappedCSVStockAdapter(mapping: ownMapping!)!
        stock(adapter)
        chain(adapter)
    case .diagnosis: break
    }
    return 0
}

/// SwiftPM links an executable's entry point as `<module>_main`; hand over
/// to libFuzzer's driver from there (libFuzzer's own `main` is then unused).
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

@_cdecl("IngestFuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in fuzzOne(data, size) }
}
