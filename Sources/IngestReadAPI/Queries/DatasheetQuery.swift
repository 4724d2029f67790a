import Foundation

/// `q=g` (Version 3): the GS1 datasheet of a GTIN at any level, scanned or typed.
public struct DatasheetQuery: ReadAPIQuery {
    public static let name = "g"
    public static let documentation = QueryDocumentation(summary: "GS1 datasheet of a GTIN at any level (gtin)", parameters: ["gtin"], answerSchema: "Datasheet")

    /// 14 digits.
    public var gtin: String

    public init(gtin: String) {
        self.gtin = gtin
    }

    public init(_ parameters: QueryParameters) throws(ReadQuery.Invalid) {
        let text = try parameters.required("gtin")
        guard let gtin = ScannedCode(text)?.gtin else {
            throw ReadQuery.Invalid(reason: "gtin is a GTIN (8 to 14 digits with their check digit, a GS1 element string or a Digital Link), not \(ReadQuery.quoted(text))")
        }
        self.init(gtin: gtin)
    }

    public func answer(from snapshot: OpenSnapshot, context: ReadContext) throws -> Data {
        ReadAPI.encode(DatasheetAnswer(gs1: try snapshot.withReader { try $0.datasheet(gtin: gtin) }.map { [$0] } ?? []))
    }
}
