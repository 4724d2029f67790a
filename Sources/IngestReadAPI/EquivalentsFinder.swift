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
        /// The pharmacy's rank by name, the last tie-break.
        var nameRank: Int
    }

    /// The group's offers ranked for this request, read through SQLite
    /// where they are not kept yet.
    func equivalents(of aptcode: String, near: GeoPoint?, tier: Int?, limit: Int, when: ReadQuery.When = .any,
                     at moment: RequestMoment, radiusKm: Double? = nil, anyPack: Bool = false) throws -> EquivalentsAnswer {
        let directory = snapshot.pharmacies
        let offers = try snapshot.withReader { reader -> EquivalentOffers? in
            let key = EquivalenceGroup.Asked(aptcode: aptcode, anyPack: anyPack)
            guard let group = try snapshot.equivalenceGroups.value(for: key, make: { try reader.equivalenceGroup(of: aptcode, anyPack: anyPack) }) else {
                return nil
            }
            return try snapshot.equivalents.value(for: group) { try reader.equivalentOffers(group: group, directory: directory) }
        }
        return ranked(offers, near: near, tier: tier, limit: limit, when: when, at: moment, radiusKm: radiusKm, anyPack: anyPack)
    }

    /// The answer when both the item's group and the group's offers are
    /// kept; nil otherwise. It needs no SQLite connection, so the request's
    /// own thread answers it (`ReadAPIQuery.answerFromMemory`).
    func keptEquivalents(of aptcode: String, near: GeoPoint?, tier: Int?, limit: Int, when: ReadQuery.When = .any,
                         at moment: RequestMoment, radiusKm: Double? = nil, anyPack: Bool = false) -> EquivalentsAnswer? {
        guard let group = snapshot.equivalenceGroups.cachedValue(for: .init(aptcode: aptcode, anyPack: anyPack)) ?? nil,
              let offers = snapshot.equivalents.cachedValue(for: group) else { return nil }
        return ranked(offers, near: near, tier: tier, limit: limit, when: when, at: moment, radiusKm: radiusKm, anyPack: anyPack)
    }

    private func ranked(_ offers: EquivalentOffers?, near: GeoPoint?, tier: Int?, limit: Int, when: ReadQuery.When,
                        at moment: RequestMoment, radiusKm: Double?, anyPack: Bool) -> EquivalentsAnswer {
        let directory = snapshot.pharmacies
        let from = near.map(MeasuredPoint.init)
        let filters = when.openNow || when.maxAgeDays != nil || radiusKm != nil
        let metres = radiusKm.map { $0 * 1000 }
        let openNow = directory.openStateRow(at: moment)
        let head = offers?.head(tier: tier, limit: max(1, limit)) { pharmacy in
            guard filters else { return true }
            guard directory.admits(pharmacy, when, at: moment, in: openNow, offers: true) else { return false }
            guard let metres else { return true }
            return (directory.metres(from: from, to: pharmacy) ?? .infinity) <= metres
        } ?? []
        let candidates = head.map { offer in
            Candidate(offer: offer, metres: directory.metres(from: from, to: offer.pharmacy), nameRank: directory.nameRanks[offer.pharmacy])
        }
        let page = candidates.sorted { left, right in
            if left.offer.rank != right.offer.rank { return left.offer.rank < right.offer.rank }
            let (l, r) = (left.metres ?? .infinity, right.metres ?? .infinity)
            if l != r { return l < r }
            return left.nameRank != right.nameRank ? left.nameRank < right.nameRank : left.offer.aptcode < right.offer.aptcode
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
    /// of `group`, at a pharmacy of `directory`, packed with every tier's
    /// price; the units of each item's pack when the group leaves the pack
    /// size open.
    func equivalentOffers(group: EquivalenceGroup, directory: PharmacyDirectory) throws(SQLiteError) -> EquivalentOffers {
        let columns = """
            offers.price_cents, offers.price_50_cents, offers.price_75_cents, offers.price_90_cents, offers.price_100_cents,
            offers.aptcode, offers.pharmacy_id, items.name
            """
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
        var packed = EquivalentOffers(perUnit: perUnit)
        // The offers come one item after another: the item's strings are
        // made when its aptcode changes, not for each offer (a `String`
        // made and hashed for each offer's pharmacy and item was a fifth of
        // an uncached `?q=eq`, perf).
        var itemBytes: [UInt8] = []
        var tiers = [Int64](repeating: EquivalentOffers.noPrice, count: EquivalentOffers.tiers.count)
        while try statement.step() {
            guard let pharmacy = directory.index(ofID: statement.textBytes(6)) else { continue }
            let aptcodeBytes = statement.textBytes(5)
            if packed.items.isEmpty || !itemBytes.withUnsafeBytes({ PharmacyDirectory.compare($0, aptcodeBytes) == 0 }) {
                itemBytes = Array(aptcodeBytes)
                packed.startItem(aptcode: statement.string(5) ?? "", name: statement.string(7) ?? "", units: Self.packUnits(statement.string(8)))
            }
            for column in tiers.indices {
                tiers[column] = statement.isNull(Int32(column + 1)) ? EquivalentOffers.noPrice : statement.int64(Int32(column + 1))
            }
            packed.append(pharmacy: pharmacy, priceCents: statement.int64(0), tierCents: tiers)
        }
        packed.finish()
        return packed
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
