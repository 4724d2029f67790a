/// The gates of a run, in the order they are judged and reported: the
/// night's and each pharmacy's, built from the run's limits. Adding a gate
/// is its file and one line in `builtIn` (docs/ADDING_A_GATE.md); a test may
/// pass its own with `ImportOptions.additionalGates`.
public struct GateCatalog: Sendable {
    public let gates: [any Gate]

    public init(_ gates: [any Gate]) {
        self.gates = gates
    }

    /// The built-in gates with the limits `gates` and `checks` hold.
    public static func builtIn(gates: QualityGates, checks: StockDataChecks) -> GateCatalog {
        GateCatalog([
            FreshShareGate(minSharePercent: gates.minFreshSharePercent),
            CountFallGate.offers(maxFallPercent: gates.maxOfferDropPercent),
            CountFallGate.pharmacies(maxFallPercent: gates.maxPharmacyDropPercent),
            CountRiseGate.pharmacies(maxRisePercent: gates.maxPharmacyRisePercent),
            CountRiseGate.unregistered(maxRisePercent: gates.maxUnregisteredRisePercent),
            PriceShiftCheck(maxRatio: checks.maxPriceRatio, minCommonItems: checks.minCommonItems),
            ItemCountDropCheck(maxDropPercent: checks.maxItemDropPercent),
            DuplicateStockCheck(minItems: checks.duplicateMinItems),
        ])
    }

    /// The gates that judge `scope`, in order.
    public func gates(_ scope: GateScope) -> [any Gate] { gates.filter { $0.scope == scope } }

    /// Every gate's name, for the metrics' families (each name has a sample, 0 or 1, every run).
    public var names: [String] { gates.map(\.name) }

    /// The night gates' verdicts on `counts`, as the report keeps them.
    public func measure(_ counts: NightCounts) -> [QualityGates.Measure] {
        gates(.night).compactMap { gate in
            gate.judge(.night(counts)).map { QualityGates.Measure(gate: gate.name, verdict: $0) }
        }
    }
}
