import IngestCore

/// What a client typed into `?q=i&search=`, read the way READ_API.md
/// (Version 3) reads it, and written as FTS5 queries that cannot be a syntax
/// error: the text (in NFC) is cut into words the way the index's `unicode61`
/// tokenizer cuts names (letters and digits; everything else separates), a
/// number and its unit become one term whatever the spacing (`400 mg`,
/// `400MG`), and each term becomes a quoted prefix, all required. Quoting
/// leaves no operator, column name or bracket of the client's to parse.
struct ItemSearchText: Equatable {
    enum Term: Equatable {
        /// A word as typed (NFC), matched as a word prefix.
        case word(String)
        /// A number and its unit: matches `400mg` and `400 mg` alike.
        case quantity(number: String, unit: String)
    }

    /// Which columns a match must fall in.
    enum Columns: String {
        case all = "{name producer active_substance}"
        case name = "{name}"
    }

    /// At most 16: a longer text is not a search.
    let terms: [Term]

    /// Units a number is written with in item names (lower-case).
    static let units: Set<String> = ["mg", "g", "kg", "mcg", "µg", "μg", "ug", "ng", "ml", "l", "dl", "cl", "iu", "ki", "tk", "mmol", "meq", "u", "ru"]

    init(_ text: String) {
        var terms: [Term] = []
        var pendingNumber: String?
        for word in Self.words(CanonicalText.nfc(text)) {
            let (digits, letters) = Self.numberAndLetters(word)
            if let number = pendingNumber, digits.isEmpty, Self.units.contains(word.lowercased()) {
                terms[terms.count - 1] = .quantity(number: number, unit: word.lowercased())
                pendingNumber = nil
                continue
            }
            pendingNumber = nil
            if !digits.isEmpty, letters.isEmpty {
                pendingNumber = digits
                terms.append(.word(word))
            } else if !digits.isEmpty, Self.units.contains(letters.lowercased()) {
                terms.append(.quantity(number: digits, unit: letters.lowercased()))
            } else {
                terms.append(.word(word))
            }
            if terms.count == 16 { break }
        }
        self.terms = terms
    }

    var isEmpty: Bool { terms.isEmpty }

    /// The words a typo may be corrected in: 4 letters or more, not numbers.
    var correctableWords: [String] {
        terms.compactMap { term in
            guard case .word(let word) = term, word.unicodeScalars.filter(\.properties.isAlphabetic).count >= 4 else { return nil }
            return word
        }
    }

    /// The FTS5 query: every term, within `columns`; a word in `corrections`
    /// is matched by any of its corrected prefixes instead; `anchored` asks
    /// only that the first term start the column (`^`).
    func expression(_ columns: Columns, corrections: [String: [String]] = [:], anchored: Bool = false) -> String? {
        guard !terms.isEmpty else { return nil }
        func alternatives(_ term: Term) -> [String] {
            switch term {
            case .word(let word): return corrections[word] ?? [word]
            case .quantity(let number, let unit): return [number + unit, number + " " + unit]
            }
        }
        let caret = anchored ? "^" : ""
        let parts = (anchored ? [terms[0]] : terms).map { term in
            let prefixes = alternatives(term).map { caret + Self.quoted($0) + "*" }
            return prefixes.count == 1 ? prefixes[0] : "(" + prefixes.joined(separator: " OR ") + ")"
        }
        return columns.rawValue + " : (" + parts.joined(separator: " AND ") + ")"
    }

    /// A string for FTS5: in double quotes, a quote doubled.
    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `400mg` → ("400", "mg"); `ibu` → ("", "ibu"); `n30` and `2x10` → ("", word): a number first, then letters only.
    private static func numberAndLetters(_ word: String) -> (digits: String, letters: String) {
        let digits = word.prefix { $0.isASCII && $0.isNumber }
        let rest = word.dropFirst(digits.count)
        guard rest.allSatisfy(\.isLetter) else { return ("", word) }
        return (String(digits), String(rest))
    }

    /// The words of `text`, as the index cuts them.
    static func words(_ text: String) -> [String] {
        var words: [String] = []
        var word = ""
        for scalar in text.unicodeScalars {
            if isWordScalar(scalar) {
                word.unicodeScalars.append(scalar)
            } else if !word.isEmpty {
                words.append(word)
                word = ""
            }
        }
        if !word.isEmpty { words.append(word) }
        return words
    }

    /// unicode61's token characters: letters, numbers, private-use (`Co`)
    /// scalars, and the combining marks it folds into their letters.
    private static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .decimalNumber, .letterNumber, .otherNumber, .privateUse, .nonspacingMark, .spacingMark:
            return true
        default:
            return false
        }
    }
}

/// What a ranked search is kept under: the text as the client sent it (the
/// same words in another spelling are another key, ranked once more), the
/// filters, and how far down the ranking the page reaches.
struct ItemSearchKey: Hashable, Sendable {
    var text: String
    var atc: String?
    var prescription: Bool?
    var end: Int
}

/// The first `end` items of a search in rank order, and how many match in all.
struct RankedSearch: Sendable {
    var items: [SnapshotReader.Item]
    var total: Int
}
