import HeapModule

/// `?q=eq`'s sold offers of one equivalence group, as `OpenSnapshot` keeps
/// them: packed, one place per offer in a few flat arrays, every tier's
/// price beside the shelf price, so that one entry answers every tier and
/// every client, and the whole national catalogue's groups fit.
///
/// It replaced a ranking kept per group and tier (about 100 bytes an offer
/// with its strings, 200,000 offers at most): the bench's items at random
/// come from 1,800 groups at five tiers, 9,000 rankings of about 1,100
/// offers, so almost every request missed and read its group through SQLite
/// (1.3 ms of CPU; p99 29–46 ms under `make bench-serve`). Packed, an offer
/// takes 12 bytes, 44 with tier prices (a fifth of the bench's items have
/// them): the bench's two million sold offers in register groups take about
/// 36 MB. A request ranks the group itself: one pass for the rank at the
/// page's end (a heap of `limit` ranks), one for the offers at or above it.
struct EquivalentOffers: Sendable {
    /// One item of the group; its offers lie one after another.
    struct Item: Sendable {
        var aptcode: String
        var name: String
        /// Units in its pack as the register counts them; nil where that is no number.
        var units: Double?
        /// Its offers' places in `pharmacies` and `priceCents`.
        var offers: Range<Int>
        /// Where its offers' tier prices start in `tierCents`; nil when none of its offers has one.
        var tierStart: Int?
        /// The tiers (bits in `EquivalentOffers.tiers`' order) any of its offers
        /// has a price for: only those are kept, one after another per offer
        /// (an item is reimbursed at one rate, so it has one or two).
        var tierMask: UInt8 = 0
    }

    /// The tiers, in the order of `Item.tierMask`'s bits.
    static let tiers = [50, 75, 90, 100]
    /// A tier price the snapshot leaves NULL (money is never negative).
    static let noPrice = Int64.min

    /// `packs=any`: ranked by the price of one unit of the pack.
    let perUnit: Bool
    private(set) var items: [Item] = []
    private(set) var pharmacies: [UInt32] = []
    private(set) var priceCents: [Int64] = []
    private(set) var tierCents: [Int64] = []

    init(perUnit: Bool) {
        self.perUnit = perUnit
    }

    var count: Int { pharmacies.count }

    /// What the cache counts: the arrays' bytes and each item's share.
    var bytesHeld: Int {
        pharmacies.count * 4 + priceCents.count * 8 + tierCents.count * 8
            + items.reduce(0) { $0 + 80 + $1.aptcode.utf8.count + $1.name.utf8.count }
    }

    /// Starts the next item, whose offers `append` adds.
    mutating func startItem(aptcode: String, name: String, units: Double?) {
        closeItem()
        items.append(Item(aptcode: aptcode, name: name, units: units, offers: count..<count, tierStart: nil))
        pendingTiers.removeAll(keepingCapacity: true)
        pendingMask = 0
    }

    /// An offer of the item started last; `tierCents` in `Self.tiers`' order, `noPrice` for NULL.
    mutating func append(pharmacy: PharmacyDirectory.Index, priceCents price: Int64, tierCents tiers: [Int64]) {
        precondition(!items.isEmpty, "an offer before its item")
        pharmacies.append(UInt32(pharmacy))
        priceCents.append(price)
        pendingTiers += tiers
        for (column, cents) in tiers.enumerated() where cents != Self.noPrice { pendingMask |= 1 << column }
        items[items.count - 1].offers = items[items.count - 1].offers.lowerBound..<count
    }

    /// Keeps the last item's tier prices when any of its offers has one.
    mutating func finish() {
        closeItem()
        pendingTiers = []
    }

    /// The last item's offers' tier prices, all four an offer, until it is closed.
    private var pendingTiers: [Int64] = []
    private var pendingMask: UInt8 = 0

    private mutating func closeItem() {
        guard !items.isEmpty, pendingMask != 0 else { return }
        items[items.count - 1].tierStart = tierCents.count
        items[items.count - 1].tierMask = pendingMask
        for (place, cents) in pendingTiers.enumerated() where pendingMask & (1 << (place % Self.tiers.count)) != 0 {
            tierCents.append(cents)
        }
        pendingMask = 0
    }

    /// The offers `admits` lets through that can be on a page of `limit`
    /// ranked at `tier`: those whose rank is at most the `limit`-th smallest,
    /// ties included, so that distance can order them. In no order.
    func head(tier: Int?, limit: Int, admits: (PharmacyDirectory.Index) -> Bool) -> [RankedEquivalents.Offer] {
        let column = tier.flatMap { Self.tiers.firstIndex(of: $0) }
        // The `limit` smallest ranks so far; its largest is the cut.
        var smallest = Heap<Double>()
        var admittedCount = 0
        forEachAdmitted(column: column, admits: admits) { rank, _, _, _ in
            admittedCount += 1
            if smallest.count < limit {
                smallest.insert(rank)
            } else if let largest = smallest.max, rank < largest {
                _ = smallest.replaceMax(with: rank)
            }
        }
        guard let cut = smallest.max else { return [] }
        var head: [RankedEquivalents.Offer] = []
        head.reserveCapacity(min(admittedCount, limit * 2))
        forEachAdmitted(column: column, admits: admits) { rank, rankCents, patientCents, place in
            guard rank <= cut else { return }
            let item = items[place.item]
            head.append(RankedEquivalents.Offer(rank: rank, rankCents: rankCents, units: item.units, aptcode: item.aptcode, name: item.name,
                                                pharmacy: Int(pharmacies[place.offer]), priceCents: priceCents[place.offer],
                                                patientCents: patientCents))
        }
        return head
    }

    /// Each offer `admits` lets through, with its rank: the patient's price
    /// at the tier in `column` (else the shelf price), per unit for
    /// `perUnit` (an item whose pack size is no number ranks last).
    private func forEachAdmitted(column: Int?, admits: (PharmacyDirectory.Index) -> Bool,
                                 _ body: (_ rank: Double, _ rankCents: Int64, _ patientCents: Int64?, _ place: (item: Int, offer: Int)) -> Void) {
        for (itemPlace, item) in items.enumerated() {
            // The tier's place among the item's kept tiers, and how many it keeps an offer.
            var tierBase: Int?
            if let column, let start = item.tierStart, item.tierMask & (1 << column) != 0 {
                tierBase = start + (item.tierMask & ((1 << column) - 1)).nonzeroBitCount
            }
            let stride = item.tierMask.nonzeroBitCount
            for offer in item.offers where admits(Int(pharmacies[offer])) {
                var patient: Int64?
                if let tierBase {
                    let cents = tierCents[tierBase + (offer - item.offers.lowerBound) * stride]
                    if cents != Self.noPrice { patient = cents }
                }
                let rankCents = patient ?? priceCents[offer]
                let rank = perUnit ? item.units.map { Double(rankCents) / $0 } ?? .infinity : Double(rankCents)
                body(rank, rankCents, patient, (itemPlace, offer))
            }
        }
    }

    /// 48 MiB at most: every group of the national snapshot (about 35 MB
    /// on the bench's), with the server under its 200 MB.
    static func cache(capacity: Int = 48 << 20) -> SnapshotAnswerCache<EquivalenceGroup, EquivalentOffers> {
        SnapshotAnswerCache(capacity: capacity) { $0.count == 0 ? 0 : $0.bytesHeld }
    }
}
