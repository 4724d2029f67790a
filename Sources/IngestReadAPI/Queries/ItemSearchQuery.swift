import Foundation

/// `q=i`: items by words that forgive (prefixes, diacritics, one typo in a
/// long word), by a code (aptcode, package code, GTIN, a scanned GS1 code),
/// within an ATC prefix (Version 2) and a prescription choice (Version 3).
public struct ItemSearchQuery: ReadAPIQuery {
    public static let name = "i"
    public static let documentation = QueryDocumentation(
        summary: "item search (search and/or atc; optional rx)",
        parameters: ["search", "atc", "rx", "limit", "offset"], answerSchema: "ItemSearch")

    public var text: String
    /// Only items whose ATC code starts with it (Version 2), alone or with `text`.
    public var atc: String?
    /// `rx=1` only prescription-only items, `rx=0` the others, nil either (Version 3).
    public var prescription: Bool?
    public var page: ResultPage

    public init(text: String, atc: String? = nil, prescription: Bool? = nil, page: ResultPage = .first) {
        self.text = text
        self.atc = atc
        self.prescription = prescription
        self.page = page
    }

    public init(_ parameters: QueryParameters) throws(ReadQuery.Invalid) {
        let atc = parameters["atc"].flatMap { $0.isEmpty ? nil : $0.uppercased() }
        guard let text = parameters["search"] ?? atc.map({ _ in "" }) else { throw ReadQuery.Invalid(reason: "q=i needs the parameter search or atc") }
        self.init(text: text, atc: atc, prescription: parameters["rx"].map { $0 == "1" }, page: try parameters.page())
    }

    public func answer(from snapshot: OpenSnapshot, context: ReadContext) throws -> Data {
        let found = try ReadAPI.cachedSearch(text, atc: atc, prescription: prescription, page: page, in: snapshot)
        return ReadAPI.encode(ItemSearch(items: found.items.map { .init(a: $0.aptcode, n: $0.name, p: $0.producer, rx: $0.prescription) },
                                         paging: found.paging))
    }
}

extension ReadAPI {
    /// `?q=i`: the items a code names exactly (aptcode, package code, GTIN
    /// and the items below a case GTIN, GS1 element string, Digital Link)
    /// first, then those whose words match (`SnapshotReader.search`'s
    /// order), within the ATC prefix and the `rx` choice: the first `end` of
    /// them, and how many match in all. Words that match nothing find
    /// nothing; no words, with an ATC prefix, list its items.
    ///
    /// The first `end` rows of the word search hold every row of the merged
    /// list up to `end`, and the exact matches (a handful at most) are
    /// counted in the total unless the words find them too.
    static func search(_ text: String, atc: String?, prescription: Bool? = nil, end: Int, in reader: SnapshotReader,
                       vocabulary: SearchVocabulary) throws -> (items: [SnapshotReader.Item], total: Int) {
        let exact = try ScannedCode(text).map { code in
            try reader.items(named: code, prescription: prescription).filter { atc == nil || ($0.atc ?? "").hasPrefix(atc!) }.map(\.item)
        } ?? []
        let plan = searchPlan(ItemSearchText(text), reader: reader, vocabulary: vocabulary)
        let listed = plan != nil || (atc != nil && text.allSatisfy(\.isWhitespace))
        var items = exact
        var total = 0
        if listed {
            items += try reader.search(plan, atcPrefix: atc, prescription: prescription, limit: end > Int.max - exact.count ? Int.max : end + exact.count)
            total = try reader.searchCount(plan, atcPrefix: atc, prescription: prescription)
        }
        var seen = Set<String>()
        let merged = items.filter { seen.insert($0.aptcode).inserted }
        for item in Set(exact.map(\.aptcode)) {
            if try !listed || !reader.matches(aptcode: item, plan, atcPrefix: atc, prescription: prescription) { total += 1 }
        }
        return (Array(merged.prefix(end)), total)
    }

    /// `search`, its ranking kept per snapshot (`OpenSnapshot.searches`) up to
    /// the page's end: a later page or a larger `limit` ranks again.
    static func cachedSearch(_ text: String, atc: String?, prescription: Bool?, page: ResultPage,
                             in snapshot: OpenSnapshot) throws -> (items: [SnapshotReader.Item], paging: Paging) {
        let limit = min(page.limit ?? searchLimit, ResultPage.maximum)
        let end = page.offset > Int.max - limit ? Int.max : page.offset + limit
        let key = ItemSearchKey(text: text, atc: atc, prescription: prescription, end: end)
        let ranked = try snapshot.searches.value(for: key) {
            try snapshot.withReader { reader in
                let found = try search(text, atc: atc, prescription: prescription, end: end, in: reader, vocabulary: snapshot.vocabulary)
                return RankedSearch(items: found.items, total: found.total)
            }
        }
        let range = page.range(total: ranked.total, defaultLimit: searchLimit)
        let shown = range.isEmpty ? [] : Array(ranked.items[min(range.lowerBound, ranked.items.count)..<min(range.upperBound, ranked.items.count)])
        return (shown, Paging(total: ranked.total, shown: range))
    }

    /// The FTS5 queries for `text` (nil when it has no words). A word of 4
    /// letters or more that starts no word of the catalogue is matched by
    /// its one-typo corrections; a file without the folded index (or its
    /// vocabulary) matches the words as typed.
    static func searchPlan(_ text: ItemSearchText, reader: SnapshotReader, vocabulary: SearchVocabulary) -> SnapshotReader.SearchPlan? {
        var corrections: [String: [String]] = [:]
        if !vocabulary.isEmpty {
            for word in text.correctableWords where corrections[word] == nil && !vocabulary.hasWord(startingWith: word) {
                let corrected = vocabulary.corrections(of: word)
                // No correction either: the word as typed, which finds nothing, as it should.
                if !corrected.isEmpty { corrections[word] = corrected }
            }
        }
        guard let matching = text.expression(.all, corrections: corrections), let exact = text.expression(.all),
              let inName = text.expression(.name, corrections: corrections),
              let startsName = text.expression(.name, corrections: corrections, anchored: true) else { return nil }
        return SnapshotReader.SearchPlan(matching: matching, exact: exact, inName: inName, startsName: startsName)
    }
}
