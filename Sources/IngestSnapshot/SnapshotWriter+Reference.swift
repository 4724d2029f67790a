import IngestCore

/// The reference tables: written after the offers, inside the same transaction.
extension SnapshotWriter {
    public func writeReimbursements(_ rows: [ReimbursementRow], diagnoses: [DiagnosisRow], legend: [(code: String, text: String)]) throws {
        let tier = try database.cachedStatement(
            "INSERT INTO reimbursements(package_code, rate, limit_price_cents, diagnoses, info) VALUES (?, ?, ?, ?, ?)")
        for row in rows {
            try tier.run(.text(row.packageCode), .int(Int64(row.rate)), .int(row.limitPriceCents), .text(row.diagnoses), .text(row.info))
        }
        let diagnosis = try database.cachedStatement(
            "INSERT INTO reimbursement_diagnoses(package_code, rate, icd_from, icd_to, marker) VALUES (?, ?, ?, ?, ?)")
        for row in diagnoses {
            try diagnosis.run(.text(row.packageCode), .int(Int64(row.rate)), .text(row.icdFrom), .text(row.icdTo), .text(row.marker))
        }
        let abbreviation = try database.cachedStatement("INSERT INTO diagnosis_legend(code, text) VALUES (?, ?)")
        for entry in legend { try abbreviation.run(.text(entry.code), .text(entry.text)) }
    }

    public func writeICD10(_ codes: [(code: String, name: String)]) throws {
        let insert = try database.cachedStatement("INSERT INTO icd10(code, name) VALUES (?, ?)")
        for entry in codes { try insert.run(.text(entry.code), .text(entry.name)) }
    }

    /// ATC groups with their `child_count`, counted here from the rows (a
    /// subquery on `parent` before its index exists scanned the table once
    /// per group: 7,000 groups took half a minute); `item_count` is derived
    /// once items are in (`deriveATCCounts`).
    public func writeATC(_ rows: [ATCRow]) throws {
        var children: [String: Int64] = [:]
        for row in rows { if let parent = row.parent { children[parent, default: 0] += 1 } }
        let insert = try database.cachedStatement("INSERT INTO atc(code, name, level, parent, child_count, item_count) VALUES (?, ?, ?, ?, ?, 0)")
        for row in rows {
            try insert.run(.text(row.code), .text(row.name), .int(Int64(row.level)), .text(row.parent), .int(children[row.code, default: 0]))
        }
    }

    /// `item_count`: distinct items whose ATC code lies under the group at any
    /// depth (a prefix match on the items_by_atc index, one range per group;
    /// ATC codes are upper-case letters and digits, all sorting before `~`).
    public func deriveATCCounts() throws {
        try database.execute("CREATE INDEX IF NOT EXISTS items_by_atc ON items(atc)")
        try database.execute("""
            UPDATE atc SET item_count = (SELECT count(*) FROM items WHERE items.atc >= atc.code AND items.atc < atc.code || '~')
            """)
    }

    public func writeMedicineRegister(_ rows: [MedicinePackage]) throws {
        let insert = try database.cachedStatement("""
            INSERT INTO medicine_register(package_code, name, form, strength, pack_size, atc, active_substance,
                                          leaflet_url, spc_url, prescription)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for row in rows {
            try insert.run(.text(row.packageCode), .text(row.name), .text(row.form), .text(row.strength), .text(row.packSize),
                           .text(row.atc), .text(row.activeSubstance), .text(row.leafletURL), .text(row.spcURL), .text(row.prescription))
        }
    }

    public func writeGS1(_ items: [GS1ItemRow]) throws {
        let insert = try database.cachedStatement("""
            INSERT INTO gs1_items(gtin, unit_descriptor, brand, description, net_content, image_url,
                                  checks_passed, checks_warning, checks_failed, checks_unable)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let child = try database.cachedStatement("INSERT INTO gs1_children(parent_gtin, child_gtin, quantity) VALUES (?, ?, ?)")
        for item in items {
            try insert.run(.text(item.gtin), .text(item.unitDescriptor), .text(item.brand), .text(item.description), .text(item.netContent),
                           .text(item.imageURL), .int(Int64(item.checks.passed)), .int(Int64(item.checks.warning)),
                           .int(Int64(item.checks.failed)), .int(Int64(item.checks.unable)))
            for entry in item.children { try child.run(.text(item.gtin), .text(entry.gtin), .int(entry.quantity)) }
        }
    }

    /// One written offer's shelf price and quantity.
    public func offer(pharmacyID: String, aptcode: String) throws -> OfferRow? {
        let select = try database.cachedStatement(
            "SELECT price_cents, quantity, limit_price_cents FROM offers WHERE pharmacy_id = ? AND aptcode = ?")
        try select.bind(pharmacyID, at: 1)
        try select.bind(aptcode, at: 2)
        guard try select.step() else { return nil }
        return OfferRow(aptcode: aptcode, priceCents: select.int64(0), quantity: select.isNull(1) ? nil : select.int64(1),
                        limitPriceCents: select.isNull(2) ? nil : select.int64(2))
    }

    /// Tier prices for offers whose package code became known only after
    /// they were written (an item without a package code in its own feed,
    /// such as RAX 3.1, takes its item's). Rows arrive in key order.
    public func updateTierPrices(_ updates: [(pharmacyID: String, row: OfferRow)]) throws {
        let update = try database.cachedStatement("""
            UPDATE offers SET limit_price_cents = ?, price_50_cents = ?, price_75_cents = ?, price_90_cents = ?, price_100_cents = ?
            WHERE pharmacy_id = ? AND aptcode = ?
            """)
        for (pharmacyID, row) in updates {
            try update.run(.int(row.limitPriceCents), .int(row.price50Cents), .int(row.price75Cents), .int(row.price90Cents),
                           .int(row.price100Cents), .text(pharmacyID), .text(row.aptcode))
        }
    }
}
