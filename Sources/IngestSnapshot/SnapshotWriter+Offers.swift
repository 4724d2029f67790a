import IngestCore

/// Offers read back and updated after they were written.
extension SnapshotWriter {
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
