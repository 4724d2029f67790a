/// One row of the pharmacy registry (FEEDS.md §5).
public struct PharmacyRecord: Sendable, Hashable {
    public var id: String
    public var name: String
    public var chainID: String?
    public var region: String?
    public var address: String?
    public var phone: String?
    public var openHours: String?
    public var latitude: Double
    public var longitude: Double
    /// Line in the registry file, for messages.
    public var line: Int

    public init(
        id: String, name: String, chainID: String?, region: String?, address: String?,
        phone: String?, openHours: String?, latitude: Double, longitude: Double, line: Int = 0
    ) {
        self.id = id
        self.name = name
        self.chainID = chainID
        self.region = region
        self.address = address
        self.phone = phone
        self.openHours = openHours
        self.latitude = latitude
        self.longitude = longitude
        self.line = line
    }
}
