/// One authorised package of the medicine register (FEEDS.md §11), as
/// read and as written to the snapshot's `medicine_register` table.
public struct MedicinePackage: Sendable, Hashable {
    public var packageCode: String
    public var name: String
    public var form: String?
    public var strength: String?
    public var packSize: String?
    public var atc: String?
    public var activeSubstance: String?
    /// The package leaflet: the read services' "Info sheet" (`items.info_url`).
    public var leafletURL: String?
    public var spcURL: String?
    /// `Rx` or `OTC`; nil when the register does not say (a mapped export without the column).
    public var prescription: String?
    /// In the register file (0 when kept from an earlier snapshot).
    public var line: Int

    public init(packageCode: String, name: String, form: String?, strength: String?, packSize: String?, atc: String?,
                activeSubstance: String?, leafletURL: String?, spcURL: String?, prescription: String?, line: Int) {
        self.packageCode = packageCode
        self.name = name
        self.form = form
        self.strength = strength
        self.packSize = packSize
        self.atc = atc
        self.activeSubstance = activeSubstance
        self.leafletURL = leafletURL
        self.spcURL = spcURL
        self.prescription = prescription
        self.line = line
    }
}
