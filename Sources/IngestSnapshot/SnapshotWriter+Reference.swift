/// The reference tables: written after the offers, inside the same transaction.
extension SnapshotWriter {
    public func writeReimbursements(_ rows: [ReimbursementRow], diagnoses: [DiagnosisRow], legend: [(code: String, text: String)]) throws {
        let tier = try database.cachedStatement(
            "INSERT INTO reimbursements(package_code, rate, limit_price_cents, diagnoses, info) VALUES (?, ?, ?, ?, ?)")
        for row in rows {
            tier.bind(row.packageCode, at: 1)
            tier.bind(row.rate, at: 2)
            tier.bind(row.limitPriceCents, at: 3)
            tier.bind(row.diagnoses, at: 4)
            tier.bind(row.info, at: 5)
            try tier.run()
        }
        let diagnosis = try database.cachedStatement(
            "INSERT INTO reimbursement_diagnoses(package_code, rate, icd_from, icd_to, marker) VALUES (?, ?, ?, ?, ?)")
        for row in diagnoses {
            diagnosis.bind(row.packageCode, at: 1)
            diagnosis.bind(row.rate, at: 2)
            diagnosis.bind(row.icdFrom, at: 3)
            diagnosis.bind(row.icdTo, at: 4)
            diagnosis.bind(row.marker, at: 5)
            try diagnosis.run()
        }
        let abbreviation = try database.cachedStatement("INSERT INTO diagnosis_legend(code, text) VALUES (?, ?)")
        for entry in legend {
            abbreviation.bind(entry.code, at: 1)
            abbreviation.bind(entry.text, at: 2)
            try abbreviation.run()
        }
    }

    public func writeICD10(_ codes: [(code: String, name: String)]) throws {
        let insert = try database.cachedStatement("INSERT INTO icd10(code, name) VALUES (?, ?)")
        for entry in codes {
            insert.bind(entry.code, at: 1)
            insert.bind(entry.name, at: 2)
            try insert.run()
        }
    }

    /// ATC groups; `child_count` and `item_count` are derived once items are in
    /// (`deriveATCCounts`).
    public func writeATC(_ rows: [ATCRow]) throws {
        let insert = try database.cachedStatement("INSERT INTO atc(code, name, level, parent, child_count, item_count) VALUES (?, ?, ?, ?, 0, 0)")
        for row in rows {
            insert.bind(row.code, at: 1)
            insert.bind(row.name, at: 2)
            insert.bind(row.level, at: 3)
            insert.bind(row.parent, at: 4)
            try insert.run()
        }
    }

    /// `item_count`: distinct items whose ATC code lies under the group at any
    /// depth (a prefix match on the items_by_atc index; ATC codes are
    /// upper-case letters and digits, all sorting before `~`).
    public func deriveATCCounts() throws {
        try database.execute("CREATE INDEX IF NOT EXISTS items_by_atc ON items(atc)")
        try database.execute("""
            UPDATE atc SET
                child_count = (SELECT count(*) FROM atc AS child WHERE child.parent = atc.code),
                item_count = (SELECT count(*) FROM items WHERE items.atc >= atc.code AND items.atc < atc.code || '~')
            """)
    }

    public func writeGS1(_ items: [GS1ItemRow]) throws {
        let insert = try database.cachedStatement("""
            INSERT INTO gs1_items(gtin, unit_descriptor, brand, description, net_content, image_url,
                                  checks_passed, checks_warning, checks_failed, checks_unable)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let child = try database.cachedStatement("INSERT INTO gs1_children(parent_gtin, child_gtin, quantity) VALUES (?, ?, ?)")
        for item in items {
            insert.bind(item.gtin, at: 1)
            insert.bind(item.unitDescriptor, at: 2)
            insert.bind(item.brand, at: 3)
            insert.bind(item.description, at: 4)
            insert.bind(item.netContent, at: 5)
            insert.bind(item.imageURL, at: 6)
            insert.bind(item.checks.passed, at: 7)
            insert.bind(item.checks.warning, at: 8)
            insert.bind(item.checks.failed, at: 9)
            insert.bind(item.checks.unable, at: 10)
            try insert.run()
            for entry in item.children {
                child.bind(item.gtin, at: 1)
                child.bind(entry.gtin, at: 2)
                child.bind(entry.quantity, at: 3)
                try child.run()
            }
        }
    }

    /// One written offer's shelf price and quantity.
    public func offer(pharmacyID: String, aptcode: String) throws -> OfferRow? {
        let select = try database.cachedStatement(
            "SELECT price_cents, quantity, limit_price_cents FROM offers WHERE pharmacy_id = ? AND aptcode = ?")
        select.bind(pharmacyID, at: 1)
        select.bind(aptcode, at: 2)
        guard try select.step() else { return nil }
        return OfferRow(aptcode: aptcode, priceCents: select.int64(0), quantity: select.int64(1),
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
            update.bind(row.limitPriceCents, at: 1)
            update.bind(row.price50Cents, at: 2)
            update.bind(row.price75Cents, at: 3)
            update.bind(row.price90Cents, at: 4)
            update.bind(row.price100Cents, at: 5)
            update.bind(pharmacyID, at: 6)
            update.bind(row.aptcode, at: 7)
            try update.run()
        }
    }
}
