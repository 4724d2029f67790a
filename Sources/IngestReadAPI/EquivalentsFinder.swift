import IngestSnapshot

/// `?q=eq` (READ_API.md, Version 2): where the same medicine is cheaper
/// nearby. "The same" is the register's word: the same ATC code, strength,
/// form and pack size, compared as written, trimmed and without regard to
/// case. A package the register does not list, or lists without an ATC
/// code, has no equivalents: nothing says what it is the same as.
struct EquivalentsFinder {
    let snapshot: OpenSnapshot

    /// One offer on the page, with its distance from the client.
    struct Candidate {
        var offer: RankedEquivalents.Offer
        var metres: Double?
    }

    func equivalents(of aptcode: String, near: GeoPoint?, tier: Int?, limit: Int, when: ReadQuery.When = .any,
                     at moment: RequestMoment) throws -> EquivalentsAnswer {
        let directory = snapshot.pharmacies
        var ranked = try snapshot.withReader { reader -> [RankedEquivalents.Offer] in
            guard let group = try reader.equivalenceGroup(of: aptcode) else { return [] }
            return try snapshot.equivalents.value(for: .init(group: group, tier: tier)) {
                try reader.rankedEquivalentOffers(group: group, tier: tier, directory: directory)
            }
        }
        if when != .any, when.openNow || when.maxAgeDays != nil {
            ranked = ranked.filter { directory.admits($0.pharmacy, when, at: moment, offers: true) }
        }
        // Only the offers that can be on the page: those whose rank is at
        // most the `limit`-th smallest, ties included, so distance can
        // order them. `ranked` is in rank order: the cut is a binary search.
        let wanted = max(1, min(limit, ranked.count))
        var end = ranked.count
        if let cut = ranked.isEmpty ? nil : ranked[wanted - 1].rankCents {
            var low = wanted, high = ranked.count
            while low < high {
                let middle = (low + high) / 2
                if ranked[middle].rankCents <= cut { low = middle + 1 } else { high = middle }
            }
            end = low
        }
        let from = near.map(MeasuredPoint.init)
        let candidates = ranked[..<end].map { offer in Candidate(offer: offer, metres: directory.metres(from: from, to: offer.pharmacy)) }
        let page = candidates.sorted { left, right in
            if left.offer.rankCents != right.offer.rankCents { return left.offer.rankCents < right.offer.rankCents }
            let (l, r) = (left.metres ?? .infinity, right.metres ?? .infinity)
            if l != r { return l < r }
            let (ln, rn) = (directory.nameRanks[left.offer.pharmacy], directory.nameRanks[right.offer.pharmacy])
            return ln != rn ? ln < rn : left.offer.aptcode < right.offer.aptcode
        }
        return EquivalentsAnswer(directory: directory, prices: snapshot.prices, showsTier: tier != nil, moment: moment,
                                 equivalents: Array(page.prefix(limit)))
    }
}

extension SnapshotReader {
    /// The register's key of `aptcode`'s package, (ATC, strength, form,
    /// pack size) trimmed and lowercased; nil for a package the register
    /// does not list or lists without an ATC code (nothing says what it
    /// is the same as).
    func equivalenceGroup(of aptcode: String) throws(SQLiteError) -> [String]? {
        let key = try database.cachedStatement("""
            SELECT lower(trim(r.atc)), lower(trim(r.strength)), lower(trim(r.form)), lower(trim(r.pack_size))
            FROM items JOIN medicine_register AS r ON r.package_code = items.package_code
            WHERE items.aptcode = ? AND trim(r.atc) <> ''
            """)
        defer { key.reset() }
        try key.bind(aptcode, at: 1)
        guard try key.step() else { return nil }
        return (0..<4).map { key.string(Int32($0)) ?? "" }
    }

    /// Every sold offer (quantity above zero or not reported) of the items
    /// the register lists under `group`, at a pharmacy of `directory`, in
    /// rank order: the patient's price at `tier`, else the shelf price.
    func rankedEquivalentOffers(group: [String], tier: Int?, directory: PharmacyDirectory) throws(SQLiteError) -> [RankedEquivalents.Offer] {
        // The column is one of four names, never text of the client's.
        let patient = switch tier { case 50: "offers.price_50_cents"; case 75: "offers.price_75_cents"
            case 90: "offers.price_90_cents"; case 100: "offers.price_100_cents"; default: "NULL" }
        // On `medicine_register_by_atc`, then each package's items and their offers from covering indexes.
        let statement = try database.cachedStatement("""
            SELECT coalesce(\(patient), offers.price_cents), offers.price_cents, \(patient), offers.aptcode, offers.pharmacy_id, items.name
            FROM medicine_register AS same
            JOIN items ON items.package_code = same.package_code
            JOIN offers ON offers.aptcode = items.aptcode
            WHERE lower(trim(same.atc)) = ?1 AND lower(trim(same.strength)) = ?2 AND lower(trim(same.form)) = ?3
              AND lower(trim(same.pack_size)) = ?4 AND (offers.quantity IS NULL OR offers.quantity > 0)
            """)
        defer { statement.reset() }
        for (index, part) in group.enumerated() { try statement.bind(part, at: Int32(index + 1)) }
        // One aptcode and name string per item, shared by its offers.
        var items: [String: (aptcode: String, name: String)] = [:]
        var offers: [RankedEquivalents.Offer] = []
        while try statement.step() {
            guard let pharmacy = directory.indexByID[statement.string(4) ?? ""] else { continue }
            let aptcode = statement.string(3) ?? ""
            let item = items[aptcode] ?? (aptcode, statement.string(5) ?? "")
            items[aptcode] = item
            offers.append(RankedEquivalents.Offer(rankCents: statement.int64(0), aptcode: item.aptcode, name: item.name, pharmacy: pharmacy,
                                                 priceCents: statement.int64(1), patientCents: statement.isNull(2) ? nil : statement.int64(2)))
        }
        offers.sort { $0.rankCents < $1.rankCents }
        return offers
    }
}

/// `{"equivalents": [{"i", "n", "pi", "pn", "p", "pp", "d", "s", "on", "oh", "di"}]}`: `pp` is
/// `""` without a tier or where the package has none; `di` is `""` without
/// a position or for a pharmacy without coordinates.
struct EquivalentsAnswer: JSONWritable {
    var directory: PharmacyDirectory
    var prices: PriceFormat
    var showsTier: Bool
    var moment: RequestMoment
    var equivalents: [EquivalentsFinder.Candidate]

    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.key("equivalents")
            writer.array { writer in
                for offer in equivalents {
                    writer.object { writer in
                        writer.field("i", offer.offer.aptcode)
                        writer.field("n", offer.offer.name)
                        writer.field("pi", directory.ids[offer.offer.pharmacy])
                        writer.field("pn", directory.names[offer.offer.pharmacy])
                        writer.field("p", unescaped: { prices.append(offer.offer.priceCents, to: &$0) })
                        writer.field("pp", unescaped: { if showsTier, let cents = offer.offer.patientCents { prices.append(cents, to: &$0) } })
                        writer.ageFields(directory, offer.offer.pharmacy)
                        writer.openingFields(directory, offer.offer.pharmacy, at: moment)
                        writer.distance(offer.metres)
                    }
                }
            }
        }
    }
}
