import IngestSnapshot

/// `?q=eq` (READ_API.md, Versions 2 and 3): where the same medicine is
/// cheaper nearby. "The same" is the register's word: the same ATC code,
/// strength, form and pack size, compared as written, trimmed and without
/// regard to case, an empty field matching only an empty field. A package
/// the register does not list, or lists without an ATC code, is the same as
/// nothing but itself: its own offers. `packs=any` drops the pack size and
/// ranks by the price of one unit of the pack.
struct EquivalentsFinder {
    let snapshot: OpenSnapshot

    /// One offer on the page, with its distance from the client.
    struct Candidate {
        var offer: RankedEquivalents.Offer
        var metres: Double?
    }

    func equivalents(of aptcode: String, near: GeoPoint?, tier: Int?, limit: Int, when: ReadQuery.When = .any,
                     at moment: RequestMoment, radiusKm: Double? = nil, anyPack: Bool = false) throws -> EquivalentsAnswer {
        let directory = snapshot.pharmacies
        var ranked = try snapshot.withReader { reader -> [RankedEquivalents.Offer] in
            guard let group = try reader.equivalenceGroup(of: aptcode, anyPack: anyPack) else { return [] }
            return try snapshot.equivalents.value(for: .init(group: group, tier: tier)) {
                try reader.rankedEquivalentOffers(group: group, tier: tier, directory: directory)
            }
        }
        let from = near.map(MeasuredPoint.init)
        if when.openNow || when.maxAgeDays != nil || radiusKm != nil {
            let metres = radiusKm.map { $0 * 1000 }
            let openNow = directory.openStateRow(at: moment)
            ranked = ranked.filter { offer in
                guard directory.admits(offer.pharmacy, when, at: moment, in: openNow, offers: true) else { return false }
                guard let metres else { return true }
                return (directory.metres(from: from, to: offer.pharmacy) ?? .infinity) <= metres
            }
        }
        // Only the offers that can be on the page: those whose rank is at
        // most the `limit`-th smallest, ties included, so distance can
        // order them. `ranked` is in rank order: the cut is a binary search.
        let wanted = max(1, min(limit, ranked.count))
        var end = ranked.count
        if let cut = ranked.isEmpty ? nil : ranked[wanted - 1].rank {
            var low = wanted, high = ranked.count
            while low < high {
                let middle = (low + high) / 2
                if ranked[middle].rank <= cut { low = middle + 1 } else { high = middle }
            }
            end = low
        }
        let candidates = ranked[..<end].map { offer in Candidate(offer: offer, metres: directory.metres(from: from, to: offer.pharmacy)) }
        let page = candidates.sorted { left, right in
            if left.offer.rank != right.offer.rank { return left.offer.rank < right.offer.rank }
            let (l, r) = (left.metres ?? .infinity, right.metres ?? .infinity)
            if l != r { return l < r }
            let (ln, rn) = (directory.nameRanks[left.offer.pharmacy], directory.nameRanks[right.offer.pharmacy])
            return ln != rn ? ln < rn : left.offer.aptcode < right.offer.aptcode
        }
        return EquivalentsAnswer(directory: directory, prices: snapshot.prices, showsTier: tier != nil, showsUnitPrice: anyPack, moment: moment,
                                 equivalents: Array(page.prefix(limit)))
    }
}

extension SnapshotReader {
    /// What `aptcode` is the same as: the register's key of its package,
    /// (ATC, strength, form[, pack size]) trimmed and lowercased, an absent
    /// field as ""; itself alone for a package the register does not list
    /// or lists without an ATC code; nil for an item the snapshot does not have.
    func equivalenceGroup(of aptcode: String, anyPack: Bool = false) throws(SQLiteError) -> EquivalenceGroup? {
        guard hasRegister else { return try item(aptcode) == nil ? nil : .itself(aptcode) }
        let key = try database.cachedStatement("""
            SELECT lower(trim(r.atc)), coalesce(lower(trim(r.strength)), ''), coalesce(lower(trim(r.form)), ''), coalesce(lower(trim(r.pack_size)), '')
            FROM items LEFT JOIN medicine_register AS r ON r.package_code = items.package_code
            WHERE items.aptcode = ?
            """)
        defer { key.reset() }
        try key.bind(aptcode, at: 1)
        guard try key.step() else { return nil }
        guard let atc = key.string(0), !atc.isEmpty else { return .itself(aptcode) }
        return .register([atc] + (1..<(anyPack ? 3 : 4)).map { key.string(Int32($0)) ?? "" })
    }

    /// Every sold offer (quantity above zero or not reported) of the items
    /// of `group`, at a pharmacy of `directory`, in rank order: the
    /// patient's price at `tier`, else the shelf price, per unit of the pack
    /// when the group leaves the pack size open (an offer whose pack size is
    /// no number ranks after those that have one).
    func rankedEquivalentOffers(group: EquivalenceGroup, tier: Int?, directory: PharmacyDirectory) throws(SQLiteError) -> [RankedEquivalents.Offer] {
        // The column is one of four names, never text of the client's.
        let patient = switch tier { case 50: "offers.price_50_cents"; case 75: "offers.price_75_cents"
            case 90: "offers.price_90_cents"; case 100: "offers.price_100_cents"; default: "NULL" }
        let columns = "coalesce(\(patient), offers.price_cents), offers.price_cents, \(patient), offers.aptcode, offers.pharmacy_id, items.name"
        let sold = "(offers.quantity IS NULL OR offers.quantity > 0)"
        let statement: SQLiteStatement
        var perUnit = false
        switch group {
        case .itself(let aptcode):
            statement = try database.cachedStatement("""
                SELECT \(columns), NULL FROM offers JOIN items ON items.aptcode = offers.aptcode WHERE offers.aptcode = ?1 AND \(sold)
                """)
            try statement.bind(aptcode, at: 1)
        case .register(let key):
            perUnit = key.count == 3
            // On `medicine_register_by_atc`, then each package's items and their offers from covering indexes.
            statement = try database.cachedStatement("""
                SELECT \(columns), same.pack_size
                FROM medicine_register AS same
                JOIN items ON items.package_code = same.package_code
                JOIN offers ON offers.aptcode = items.aptcode
                WHERE lower(trim(same.atc)) = ?1 AND coalesce(lower(trim(same.strength)), '') = ?2 AND coalesce(lower(trim(same.form)), '') = ?3
                  \(perUnit ? "" : "AND coalesce(lower(trim(same.pack_size)), '') = ?4") AND \(sold)
                """)
            for (index, part) in key.enumerated() { try statement.bind(part, at: Int32(index + 1)) }
        }
        defer { statement.reset() }
        // One aptcode and name string per item, shared by its offers, which
        // come one item after another: a `String` made and hashed for each
        // offer's pharmacy and item was a fifth of an uncached `?q=eq` (perf).
        var item = (aptcode: "", name: "")
        var itemBytes: [UInt8] = []
        var offers: [RankedEquivalents.Offer] = []
        while try statement.step() {
            guard let pharmacy = directory.index(ofID: statement.textBytes(4)) else { continue }
            let aptcodeBytes = statement.textBytes(3)
            if !itemBytes.withUnsafeBytes({ PharmacyDirectory.compare($0, aptcodeBytes) == 0 }) {
                item = (statement.string(3) ?? "", statement.string(5) ?? "")
                itemBytes = Array(aptcodeBytes)
            }
            let rankCents = statement.int64(0)
            let units = perUnit ? Self.packUnits(statement.string(6)) : nil
            let rank = perUnit ? units.map { Double(rankCents) / $0 } ?? .infinity : Double(rankCents)
            offers.append(RankedEquivalents.Offer(rank: rank, rankCents: rankCents, units: units, aptcode: item.aptcode, name: item.name,
                                                 pharmacy: pharmacy, priceCents: statement.int64(1),
                                                 patientCents: statement.isNull(2) ? nil : statement.int64(2)))
        }
        // The ranks sorted with their places, then the offers moved once: sorting the offers themselves
        // moved and counted references to their strings at every step, a tenth of an uncached `?q=eq`.
        let order = offers.indices.map { (rank: offers[$0].rank, place: $0) }.sorted { ($0.rank, $0.place) < ($1.rank, $1.place) }
        return order.map { offers[$0.place] }
    }

    /// The units a pack size counts (`30`, `30 tk`, `100ml`, `2,5`): its leading number; nil without one or for 0.
    static func packUnits(_ text: String?) -> Double? {
        let number = (text ?? "").drop { $0 == " " }.prefix { $0.isASCII && ($0.isNumber || $0 == "." || $0 == ",") }
        guard let value = Double(number.replacingOccurrences(of: ",", with: ".")), value > 0 else { return nil }
        return value
    }
}

/// `{"equivalents": [{"i", "n", "pi", "pn", "p", "pp", "d", "s", "on", "oh", "di"}]}`: `pp` is
/// `""` without a tier or where the package has none; `di` is `""` without
/// a position or for a pharmacy without coordinates.
struct EquivalentsAnswer: JSONWritable {
    var directory: PharmacyDirectory
    var prices: PriceFormat
    var showsTier: Bool
    /// `packs=any`: each offer's `pu`, the ranked price of one unit.
    var showsUnitPrice: Bool
    var moment: RequestMoment
    var equivalents: [EquivalentsFinder.Candidate]

    func write(to writer: inout JSONWriter) {
        let openNow = directory.openStateRow(at: moment)
        writer.object { writer in
            writer.objects("equivalents", equivalents) { writer, offer in
                writer.field("i", offer.offer.aptcode)
                writer.field("n", offer.offer.name)
                writer.field("pi", directory.ids[offer.offer.pharmacy])
                writer.field("pn", directory.names[offer.offer.pharmacy])
                writer.field("p", unescaped: { prices.append(offer.offer.priceCents, to: &$0) })
                writer.field("pp", unescaped: { if showsTier, let cents = offer.offer.patientCents { prices.append(cents, to: &$0) } })
                if showsUnitPrice {
                    // Whole cents, half up: a tablet at 3.71 € for 10 is 0.37 €.
                    writer.field("pu", unescaped: { if let units = offer.offer.units { prices.append(Int64((Double(offer.offer.rankCents) / units).rounded(.toNearestOrAwayFromZero)), to: &$0) } })
                }
                writer.ageFields(directory, offer.offer.pharmacy)
                directory.rendered.withUnsafeBufferPointer { rendered in
                    writer.openingFields(rendered, directory.openNow(offer.offer.pharmacy, in: openNow), directory.hoursField(offer.offer.pharmacy, at: moment))
                }
                writer.distance(offer.metres)
            }
        }
    }
}
