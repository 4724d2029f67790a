import Foundation
import IngestCore

/// `q=dx` (Version 3): the items reimbursed for a diagnosis.
public struct DiagnosisQuery: ReadAPIQuery {
    public static let name = "dx"
    public static let documentation = QueryDocumentation(
        summary: "items reimbursed for a diagnosis (icd)", parameters: ["icd", "limit", "offset"], answerSchema: "DiagnosisItems")

    public var icd: String
    public var page: ResultPage

    public init(icd: String, page: ResultPage = .first) {
        self.icd = icd
        self.page = page
    }

    public init(_ parameters: QueryParameters) throws(ReadQuery.Invalid) {
        let icd = try parameters.requiredCode("icd")
        guard DiagnosisNotation.isCode(icd) else { throw ReadQuery.Invalid(reason: "icd is an ICD-10 code such as J45 or J45.0, not \(ReadQuery.quoted(icd))") }
        self.init(icd: icd, page: try parameters.page())
    }

    public func answer(from snapshot: OpenSnapshot, context: ReadContext) throws -> Data {
        ReadAPI.encode(try ReadAPI.diagnosis(icd, page: page, in: snapshot))
    }
}

extension ReadAPI {
    /// `?q=dx` (Version 3): the code and its ICD-10 name, and the items
    /// reimbursed for it with the tiers the list gives them (the 75 % tier
    /// brings the derived 90 %), by name, one page of them.
    static func diagnosis(_ icd: String, page: ResultPage, in snapshot: OpenSnapshot) throws -> DiagnosisItems {
        try snapshot.withReader { reader in
            let found = try reader.itemsReimbursed(for: icd)
            let range = page.range(total: found.count, defaultLimit: searchLimit)
            let shown = found[min(range.lowerBound, found.count)..<min(range.upperBound, found.count)].map { entry in
                DiagnosisItems.Item(a: entry.item.aptcode, n: entry.item.name, p: entry.item.producer,
                                    t: entry.rates.flatMap { $0 == 75 ? [75, 90] : [$0] }.map(String.init))
            }
            return DiagnosisItems(c: icd, n: try reader.icdName(icd), items: shown, paging: Paging(total: found.count, shown: range))
        }
    }
}
