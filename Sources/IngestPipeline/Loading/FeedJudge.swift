import IngestCore

/// The checks on each pharmacy's feed (the catalogue's pharmacy gates) over
/// a night, and what they need across feeds: every stock the snapshot will
/// hold by its item-line digest (tonight's loaded feeds and the pharmacies
/// carried from `current`, skipped as unchanged included), so one pharmacy's
/// stock under another's id is found and a re-run catches what the first run
/// caught. It judges and remembers; what a verdict does to the snapshot (a
/// rejected feed, an evicted copy) is the loader's, from the `Judgement` it
/// gets back.
struct FeedJudge {
    let gates: [any Gate]
    /// `--force`: failed checks warn and the feed loads.
    let force: Bool
    /// Current's version, named when stock carried from it is the original.
    let currentVersion: String
    /// How each of `gates` went over the night, in their order.
    private(set) var summaries: [CheckSummary]
    private var held: [UInt64: HeldStock] = [:]

    /// One pharmacy's stock in the snapshot being built.
    struct HeldStock {
        var pharmacyID: String
        var exportedAt: Int64
        var file: String
        /// Where the pharmacy stands in the loader's list (an evicted copy is replaced there).
        var index: Int
        /// The feed it was loaded from tonight; nil for stock carried from `current`, which is never the copy.
        var candidate: StockFeedPlan.Candidate?
    }

    /// A feed loaded earlier tonight found to be a copy: it gives way.
    struct Eviction {
        var pharmacyID: String
        var index: Int
        var candidate: StockFeedPlan.Candidate
        var problem: StockDataChecks.Problem
    }

    /// What the checks made of one feed: the problem that rejects it (nil:
    /// it loads), the warnings of checks `--force` passed, and an earlier
    /// feed that must give way.
    struct Judgement {
        var problem: StockDataChecks.Problem?
        var warnings: [Warning] = []
        var eviction: Eviction?
    }

    init(gates: [any Gate], force: Bool, currentVersion: String) {
        self.gates = gates.filter { $0.scope == .pharmacy }
        self.force = force
        self.currentVersion = currentVersion
        summaries = self.gates.map { CheckSummary(check: $0.name, limit: $0.limit) }
    }

    /// One feed loaded tonight. `evidence` holds what the loader measured
    /// (items, current's count, the price ratio); the twin is found here.
    /// `loaded` is nil for a feed that cannot be read again (never a twin).
    mutating func judge(_ evidence: PharmacyEvidence, digest: UInt64, file: String, exportedAt: Int64,
                        loaded: StockFeedPlan.Candidate?, index: Int) -> Judgement {
        var evidence = evidence
        let id = evidence.pharmacyID
        let twin = loaded == nil ? nil : held[digest]
        if let twin {
            // Stock carried from current is never the copy; of two feeds tonight, the newer export is.
            let thisIsNewer = twin.candidate == nil
                || (exportedAt != twin.exportedAt ? exportedAt > twin.exportedAt : precedesInByteOrder(twin.file, file))
            evidence.twin = thisIsNewer
                ? PharmacyEvidence.Twin(copy: id, copyFile: file, original: twin.pharmacyID, originalFile: twin.file,
                                        carriedFrom: twin.candidate == nil ? currentVersion : nil)
                : PharmacyEvidence.Twin(copy: twin.pharmacyID, copyFile: twin.file, original: id, originalFile: file)
        }
        var judgement = Judgement()
        for (index, gate) in gates.enumerated() {
            evidence.rejectedByEarlierGate = judgement.problem != nil
            guard let verdict = gate.judge(.pharmacy(evidence)) else { continue }
            if verdict.passed {
                if let margin = verdict.margin {
                    summaries[index].passed(id, margin: margin, describe: verdict.measured)
                } else {
                    summaries[index].evaluated += 1
                }
                continue
            }
            let found = StockDataChecks.Problem(reason: RejectReason(rawValue: gate.name), message: verdict.message)
            let subject = verdict.subject ?? id
            summaries[index].failed(subject, forced: force)
            if subject != id, let twin, let candidate = twin.candidate {
                // An earlier feed tonight was the copy: it gives way to yesterday's data.
                if !force { judgement.eviction = Eviction(pharmacyID: subject, index: twin.index, candidate: candidate, problem: found) }
            } else if force {
                judgement.warnings.append(Warning(file: file, line: 0, key: id, code: .checkForced, message: "forced past \(found.reason): \(found.message)"))
            } else {
                judgement.problem = judgement.problem ?? found
            }
        }
        // Tonight's stock is held for the feeds after it unless it is rejected or a copy (forced or not).
        if judgement.problem == nil, let loaded, twin == nil || evidence.twin?.original == id {
            held[digest] = HeldStock(pharmacyID: id, exportedAt: exportedAt, file: file, index: index, candidate: loaded)
        }
        return judgement
    }

    /// Stock carried from current: never the copy, but a feed loaded earlier
    /// tonight with the same lines is one, whatever its date.
    mutating func judgeCarried(_ pharmacyID: String, items: Int, digest: UInt64, lastRefresh: Int64, index: Int) -> Eviction? {
        let carried = HeldStock(pharmacyID: pharmacyID, exportedAt: lastRefresh, file: "its data in version \(currentVersion)",
                                index: index, candidate: nil)
        guard let other = held[digest] else {
            held[digest] = carried
            return nil
        }
        guard let candidate = other.candidate else { return nil }
        let twin = PharmacyEvidence.Twin(copy: other.pharmacyID, copyFile: other.file, original: pharmacyID, originalFile: carried.file,
                                         carriedFrom: currentVersion)
        let evidence = GateEvidence.pharmacy(PharmacyEvidence(pharmacyID: pharmacyID, items: items, twin: twin))
        for (gateIndex, gate) in gates.enumerated() {
            guard let verdict = gate.judge(evidence), !verdict.passed, verdict.subject == other.pharmacyID else { continue }
            summaries[gateIndex].failed(other.pharmacyID, forced: force)
            guard !force else { return nil }
            held[digest] = carried
            return Eviction(pharmacyID: other.pharmacyID, index: other.index, candidate: candidate,
                            problem: StockDataChecks.Problem(reason: RejectReason(rawValue: gate.name), message: verdict.message))
        }
        return nil
    }
}
