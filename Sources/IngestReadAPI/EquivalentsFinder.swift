import IngestSnapshot

/// `?q=eq` (READ_API.md, Version 2): where the same medicine is cheaper
/// nearby. "The same" is the register's word: the same ATC code, strength,
/// form and pack size, compared as written, trimmed and without regard to
/// case. A package the register does not list, or lists without an ATC
/// code, has no equivalents: nothing says what it is the same as.
struct EquivalentsFinder {
    let snapshot: OpenSnapshot

    /// One offer of an equivalent item, with what it is ranked by.
    struct Candidate {
        var aptcode, name: String
        var pharmacy: PharmacyDirectory.Index
        var priceCents: Int64
        /// The patient's price at the asked tier; nil without a tier or where the package has none.
        var patientCents: Int64?
        var metres: Double?

        /// The patient's price where there is one, else the shelf price (READ_API.md).
        var rankCents: Int64 { patientCents ?? priceCents }
    }

    func equivalents(of aptcode: String, near: GeoPoint?, tier: Int?, limit: Int) throws -> EquivalentsAnswer {
        let directory = snapshot.pharmacies
        let offers = try snapshot.withReader { try $0.equivalentOffers(of: aptcode, tier: tier, limit: limit) }
        let candidates = offers.compactMap { offer -> Candidate? in
            guard let pharmacy = directory.indexByID[offer.pharmacyID] else { return nil }
            // Sold: a quantity above zero, or a price list that reports none.
            if let quantity = offer.quantity, quantity <= 0 { return nil }
            let metres = near.flatMap { near in directory.positions[pharmacy].map { near.metres(to: $0) } }
            return Candidate(aptcode: offer.aptcode, name: offer.name, pharmacy: pharmacy, priceCents: offer.priceCents,
                             patientCents: offer.patientCents, metres: metres)
        }
        let ranked = candidates.sorted { left, right in
            if left.rankCents != right.rankCents { return left.rankCents < right.rankCents }
            let (l, r) = (left.metres ?? .infinity, right.metres ?? .infinity)
            if l != r { return l < r }
            let (ln, rn) = (directory.nameRanks[left.pharmacy], directory.nameRanks[right.pharmacy])
            return ln != rn ? ln < rn : left.aptcode < right.aptcode
        }
        return EquivalentsAnswer(directory: directory, prices: snapshot.prices, showsTier: tier != nil, equivalents: Array(ranked.prefix(limit)))
    }
}

extension SnapshotReader {
    /// The offers of the items the register lists as the same medicine as
    /// `aptcode`'s package that are sold (quantity above zero or not
    /// reported) and can rank among the first `limit`, with the patient's
    /// price at `tier`.
    func equivalentOffers(of aptcode: String, tier: Int?, limit: Int) throws(SQLiteError)
        -> [(aptcode: String, name: String, pharmacyID: String, priceCents: Int64, quantity: Int64?, patientCents: Int64?)] {
        // The column is one of four names, never text of the client's.
        let patient = switch tier { case 50: "offers.price_50_cents"; case 75: "offers.price_75_cents"
            case 90: "offers.price_90_cents"; case 100: "offers.price_100_cents"; default: "NULL" }
        // The asked package's key as the register writes it, then every
        // package with that key: on `medicine_register_by_atc`, then each
        // package's items and their offers from covering indexes.
        let key = try database.cachedStatement("""
            SELECT lower(trim(r.atc)), lower(trim(r.strength)), lower(trim(r.form)), lower(trim(r.pack_size))
            FROM items JOIN medicine_register AS r ON r.package_code = items.package_code
            WHERE items.aptcode = ? AND trim(r.atc) <> ''
            """)
        defer { key.reset() }
        try key.bind(aptcode, at: 1)
        guard try key.step() else { return [] }
        let parts = (0..<4).map { key.string(Int32($0)) ?? "" }
        // Only the offers that can be on the page: those whose rank (the
        // patient's price, else the shelf price) is at most the `limit`-th
        // smallest, ties included, so distance can order them here. A
        // medicine's equivalents have 1,500 offers on the bench snapshot;
        // handing them all over cost more than the query (p99 24 ms under wrk).
        let statement = try database.cachedStatement("""
            WITH candidates AS MATERIALIZED (
                SELECT offers.aptcode AS aptcode, offers.pharmacy_id AS pharmacy_id, offers.price_cents AS price,
                       offers.quantity AS quantity, \(patient) AS patient, coalesce(\(patient), offers.price_cents) AS rank
                FROM medicine_register AS same
                JOIN items ON items.package_code = same.package_code
                JOIN offers ON offers.aptcode = items.aptcode
                WHERE lower(trim(same.atc)) = ?1 AND lower(trim(same.strength)) = ?2 AND lower(trim(same.form)) = ?3
                  AND lower(trim(same.pack_size)) = ?4 AND (offers.quantity IS NULL OR offers.quantity > 0)
            )
            SELECT candidates.aptcode, items.name, pharmacy_id, price, quantity, patient
            FROM candidates JOIN items ON items.aptcode = candidates.aptcode
            WHERE rank <= coalesce((SELECT rank FROM candidates ORDER BY rank LIMIT 1 OFFSET ?5), 9223372036854775807)
            """)
        defer { statement.reset() }
        for (index, part) in parts.enumerated() { try statement.bind(part, at: Int32(index + 1)) }
        try statement.bind(max(0, limit - 1), at: 5)
        var rows: [(String, String, String, Int64, Int64?, Int64?)] = []
        while try statement.step() {
            rows.append((statement.string(0) ?? "", statement.string(1) ?? "", statement.string(2) ?? "", statement.int64(3),
                         statement.isNull(4) ? nil : statement.int64(4), statement.isNull(5) ? nil : statement.int64(5)))
        }
        return rows
    }
}

/// `{"equivalents": [{"i", "n", "pi", "pn", "p", "pp", "di"}]}`: `pp` is
/// `""` without a tier or where the package has none; `di` is `""` without
/// a position or for a pharmacy without coordinates.
struct EquivalentsAnswer: JSONWritable {
    var directory: PharmacyDirectory
    var prices: PriceFormat
    var showsTier: Bool
    var equivalents: [EquivalentsFinder.Candidate]

    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.key("equivalents")
            writer.array { writer in
                for offer in equivalents {
                    writer.object { writer in
                        writer.field("i", offer.aptcode)
                        writer.field("n", offer.name)
                        writer.field("pi", directory.ids[offer.pharmacy])
                        writer.field("pn", directory.names[offer.pharmacy])
                        writer.field("p", unescaped: { prices.append(offer.priceCents, to: &$0) })
                        writer.field("pp", unescaped: { if showsTier, let cents = offer.patientCents { prices.append(cents, to: &$0) } })
                        writer.distance(offer.metres)
                    }
                }
            }
        }
    }
}
