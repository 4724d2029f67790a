/// Reference rows as the writer takes them (SNAPSHOT.md's reference tables).
public struct ReimbursementRow: Sendable, Hashable {
    public var packageCode: String
    public var rate: Int
    public var limitPriceCents: Int64?
    public var diagnoses: String?
    public var info: String?

    public init(packageCode: String, rate: Int, limitPriceCents: Int64?, diagnoses: String?, info: String?) {
        self.packageCode = packageCode
        self.rate = rate
        self.limitPriceCents = limitPriceCents
        self.diagnoses = diagnoses
        self.info = info
    }
}

public struct DiagnosisRow: Sendable, Hashable {
    public var packageCode: String
    public var rate: Int
    public var icdFrom: String
    public var icdTo: String
    public var marker: String?

    public init(packageCode: String, rate: Int, icdFrom: String, icdTo: String, marker: String?) {
        self.packageCode = packageCode
        self.rate = rate
        self.icdFrom = icdFrom
        self.icdTo = icdTo
        self.marker = marker
    }
}

public struct ATCRow: Sendable, Hashable {
    public var code: String
    public var name: String
    public var level: Int
    public var parent: String?

    public init(code: String, name: String, level: Int, parent: String?) {
        self.code = code
        self.name = name
        self.level = level
        self.parent = parent
    }
}

public struct GS1ItemRow: Sendable, Hashable {
    public var gtin: String
    public var unitDescriptor: String
    public var brand: String?
    public var description: String?
    public var netContent: String?
    public var imageURL: String?
    public var checks: (passed: Int, warning: Int, failed: Int, unable: Int)
    public var children: [(gtin: String, quantity: Int64)]

    public init(gtin: String, unitDescriptor: String, brand: String?, description: String?, netContent: String?, imageURL: String?,
                checks: (passed: Int, warning: Int, failed: Int, unable: Int), children: [(gtin: String, quantity: Int64)]) {
        self.gtin = gtin
        self.unitDescriptor = unitDescriptor
        self.brand = brand
        self.description = description
        self.netContent = netContent
        self.imageURL = imageURL
        self.checks = checks
        self.children = children
    }

    public static func == (a: Self, b: Self) -> Bool { a.gtin == b.gtin }
    public func hash(into hasher: inout Hasher) { hasher.combine(gtin) }
}
