/// What a stock feed says about itself before its records: enough to decide,
/// without parsing the whole file, which feed of a pharmacy counts tonight.
public struct StockFeedHeader: Sendable, Hashable {
    public var pharmacyID: String
    public var pharmacyName: String?
    public var chainID: String?
    public var exportedAt: ExportTimestamp
    /// The format and its version as the feed declares it (`RAX 3.2`).
    public var format: String
    /// The ISO 4217 currency whose minor units the feed's prices are kept
    /// in (`Money.keptCurrency`): EUR for feeds in euro or in a currency that
    /// converts to it at a fixed rate. A run loads only feeds in its
    /// snapshot's currency (SNAPSHOT.md, money in other currencies).
    public var currency: String

    public init(pharmacyID: String, pharmacyName: String?, chainID: String? = nil, exportedAt: ExportTimestamp, format: String,
                currency: String = "EUR") {
        self.pharmacyID = pharmacyID
        self.pharmacyName = pharmacyName
        self.chainID = chainID
        self.exportedAt = exportedAt
        self.format = format
        self.currency = currency
    }
}
