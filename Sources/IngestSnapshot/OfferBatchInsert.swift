import CSQLite

/// Offers written `rows` at a time through one multi-row
/// `INSERT … VALUES (…), (…), …`.
///
/// One `sqlite3_step` per offer paid, for every row, the statement's set-up
/// and tear-down and a descent of the primary key from its root. Within one
/// multi-row statement the table's cursor stays open on the last leaf, where
/// rows in key order simply append. A C program on the bench machine put
/// 5 million sorted offers in 9.2 s one statement per row and in 3.7–4.4 s
/// with 16 to 256 rows a statement; 64 keeps the statement at 576
/// parameters, far below any build's limit. The writer keeps a one-row
/// instance for the rest of a pharmacy's offers.
///
/// A first night's `price_history` rows (one per offer, its pharmacy's
/// export time as `since`) go the same way, beside the offers and in the
/// same key order: an `INSERT … SELECT` after the load took 3.9 s of the
/// bench's 20 s on one core while the other idled.
final class OfferBatchInsert {
    static let batchRows = 64

    /// The table a batch writes.
    enum Target {
        /// `offers`: pharmacy, aptcode, price, quantity, limit price, the four tier prices.
        case offers
        /// `price_history`: pharmacy, aptcode, since, price.
        case priceHistory

        var columns: Int32 { self == .offers ? 9 : 4 }
        var insert: String {
            switch self {
            case .offers: "INSERT INTO offers(pharmacy_id, aptcode, price_cents, quantity, limit_price_cents, price_50_cents, price_75_cents, price_90_cents, price_100_cents)"
            case .priceHistory: "INSERT INTO price_history(pharmacy_id, aptcode, since, price_cents)"
            }
        }
    }

    /// Rows per statement.
    let rows: Int
    let target: Target
    private let statement: SQLiteStatement
    /// The aptcodes of the rows being bound, back to back: SQLite reads them
    /// in place (SQLITE_STATIC) until the statement has stepped. A Swift
    /// string of nine bytes has no address of its own to lend.
    private var text: UnsafeMutableRawBufferPointer
    /// The pharmacy (and, for history, the `since`) bound to every row; bindings outlive resets.
    private var boundPharmacy: (id: String, since: String?)?

    init(database: SQLiteDatabase, rows: Int, into target: Target = .offers) throws(SQLiteError) {
        self.rows = rows
        self.target = target
        let row = "(" + Array(repeating: "?", count: Int(target.columns)).joined(separator: ", ") + ")"
        statement = try database.prepare("\(target.insert) VALUES \(Array(repeating: row, count: rows).joined(separator: ", "))")
        text = .allocate(byteCount: rows * 16, alignment: 1)
    }

    deinit { text.deallocate() }

    /// Writes exactly `self.rows` rows of one pharmacy, already in key
    /// order; `since` is the history's, nil for offers.
    func write(pharmacyID: String, since: String? = nil, _ rows: ArraySlice<OfferRow>) throws(SQLiteError) {
        precondition(rows.count == self.rows && (since != nil) == (target == .priceHistory))
        let columns = target.columns
        if boundPharmacy?.id != pharmacyID || boundPharmacy?.since != since {
            for row in 0..<Int32(self.rows) {
                try statement.bind(pharmacyID, at: row * columns + 1)
                if let since { try statement.bind(since, at: row * columns + 3) }
            }
            boundPharmacy = (pharmacyID, since)
        }
        reserveText(for: rows)
        var offset = 0
        var parameter: Int32 = 1
        for index in rows.indices {
            var aptcode = rows[index].aptcode
            let length = aptcode.withUTF8 { bytes in
                UnsafeMutableRawBufferPointer(rebasing: text[offset..<offset + bytes.count]).copyMemory(from: UnsafeRawBufferPointer(bytes))
                return bytes.count
            }
            try statement.bindStatic(text.baseAddress! + offset, count: length, at: parameter + 1)
            offset += length
            switch target {
            case .offers:
                try statement.bind(rows[index].priceCents, at: parameter + 2)
                try statement.bind(rows[index].quantity, at: parameter + 3)
                try statement.bind(rows[index].limitPriceCents, at: parameter + 4)
                try statement.bind(rows[index].price50Cents, at: parameter + 5)
                try statement.bind(rows[index].price75Cents, at: parameter + 6)
                try statement.bind(rows[index].price90Cents, at: parameter + 7)
                try statement.bind(rows[index].price100Cents, at: parameter + 8)
            case .priceHistory:
                try statement.bind(rows[index].priceCents, at: parameter + 3)
            }
            parameter += columns
        }
        try statement.run()
    }

    private func reserveText(for rows: ArraySlice<OfferRow>) {
        var needed = 0
        for index in rows.indices { needed += rows[index].aptcode.utf8.count }
        guard needed > text.count else { return }
        text.deallocate()
        text = .allocate(byteCount: needed * 2, alignment: 1)
    }
}
