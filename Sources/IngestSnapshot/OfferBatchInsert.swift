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
/// Each offer's `price_since` is bound from the same buffer as its aptcode:
/// most of a pharmacy's offers share one of a few strings, and a text bound
/// with SQLITE_TRANSIENT was a copy per row.
final class OfferBatchInsert {
    static let batchRows = 64

    /// pharmacy, aptcode, price, price since, quantity, limit price, the four tier prices.
    static let columns: Int32 = 10
    static let insert = "INSERT INTO offers(pharmacy_id, aptcode, price_cents, price_since, quantity, limit_price_cents, price_50_cents, price_75_cents, price_90_cents, price_100_cents)"

    /// Rows per statement.
    let rows: Int
    private let statement: SQLiteStatement
    /// The aptcodes of the rows being bound, back to back: SQLite reads them
    /// in place (SQLITE_STATIC) until the statement has stepped. A Swift
    /// string of nine bytes has no address of its own to lend.
    private var text: UnsafeMutableRawBufferPointer
    /// The pharmacy bound to every row; bindings outlive resets.
    private var boundPharmacy: String?

    init(database: SQLiteDatabase, rows: Int) throws(SQLiteError) {
        self.rows = rows
        let row = "(" + Array(repeating: "?", count: Int(Self.columns)).joined(separator: ", ") + ")"
        statement = try database.prepare("\(Self.insert) VALUES \(Array(repeating: row, count: rows).joined(separator: ", "))")
        text = .allocate(byteCount: rows * 48, alignment: 1)
    }

    deinit { text.deallocate() }

    /// Writes exactly `self.rows` rows of one pharmacy, already in key order.
    func write(pharmacyID: String, _ rows: ArraySlice<OfferRow>) throws(SQLiteError) {
        precondition(rows.count == self.rows)
        let columns = Self.columns
        if boundPharmacy != pharmacyID {
            for row in 0..<Int32(self.rows) { try statement.bind(pharmacyID, at: row * columns + 1) }
            boundPharmacy = pharmacyID
        }
        reserveText(for: rows)
        var offset = 0
        var parameter: Int32 = 1
        for index in rows.indices {
            try bindText(rows[index].aptcode, at: parameter + 1, offset: &offset)
            try statement.bind(rows[index].priceCents, at: parameter + 2)
            if let since = rows[index].priceSince {
                try bindText(since, at: parameter + 3, offset: &offset)
            } else {
                try statement.bind(nil as String?, at: parameter + 3)
            }
            try statement.bind(rows[index].quantity, at: parameter + 4)
            try statement.bind(rows[index].limitPriceCents, at: parameter + 5)
            try statement.bind(rows[index].price50Cents, at: parameter + 6)
            try statement.bind(rows[index].price75Cents, at: parameter + 7)
            try statement.bind(rows[index].price90Cents, at: parameter + 8)
            try statement.bind(rows[index].price100Cents, at: parameter + 9)
            parameter += columns
        }
        try statement.run()
    }

    /// Copies `value` into the buffer at `offset` and binds it there (SQLITE_STATIC).
    private func bindText(_ value: String, at parameter: Int32, offset: inout Int) throws(SQLiteError) {
        var value = value
        let length = value.withUTF8 { bytes in
            UnsafeMutableRawBufferPointer(rebasing: text[offset..<offset + bytes.count]).copyMemory(from: UnsafeRawBufferPointer(bytes))
            return bytes.count
        }
        try statement.bindStatic(text.baseAddress! + offset, count: length, at: parameter)
        offset += length
    }

    private func reserveText(for rows: ArraySlice<OfferRow>) {
        var needed = 0
        for index in rows.indices { needed += rows[index].aptcode.utf8.count + (rows[index].priceSince?.utf8.count ?? 0) }
        guard needed > text.count else { return }
        text.deallocate()
        text = .allocate(byteCount: needed * 2, alignment: 1)
    }
}
