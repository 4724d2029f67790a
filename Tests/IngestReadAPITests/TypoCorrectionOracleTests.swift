import IngestCore
import IngestGenerator
import Testing
@testable import IngestReadAPI

/// `SearchVocabulary.corrections` skips a catalogue word whose first two
/// letters cannot survive one edit of the typed word. Checked against the
/// rule written out plainly: every prefix of every word, one to one edit
/// away by optimal string alignment distance, over a seeded vocabulary and
/// typed words with an edit at every position (the first two included).
@Suite struct TypoCorrectionOracleTests {
    @Test func theShortcutFindsWhatTheWholeScanFinds() {
        var random = SeededRandom(seed: 45)
        let letters = Array("abeikmnoprstuõš")
        func word(_ length: Int) -> String { String((0..<length).map { _ in letters[random.int(0...letters.count - 1)] }) }
        let terms = (0..<1_500).map { _ in word(random.int(2...9)) }
        let vocabulary = SearchVocabulary(terms: terms.map(CanonicalText.folded))
        let folded = terms.map { Array(CanonicalText.folded($0).unicodeScalars) }
        var typed: [String] = []
        for _ in 0..<300 {
            var scalars = Array(terms[random.int(0...terms.count - 1)])
            guard scalars.count >= 4 else { continue }
            let at = random.int(0...scalars.count - 2) // 0 and 1 as often as any other place
            switch random.int(0...3) {
            case 0: scalars[at] = letters[random.int(0...letters.count - 1)]
            case 1: scalars.insert(letters[random.int(0...letters.count - 1)], at: at)
            case 2: scalars.remove(at: at)
            default: scalars.swapAt(at, at + 1)
            }
            typed.append(String(scalars))
        }
        typed += (0..<50).map { _ in word(4 + random.int(0...3)) }
        var compared = 0, nonEmpty = 0
        for word in typed {
            let expected = Self.corrections(of: Array(CanonicalText.folded(word).unicodeScalars), in: folded)
            #expect(vocabulary.corrections(of: word) == expected, "\(word)")
            compared += 1
            if !expected.isEmpty { nonEmpty += 1 }
        }
        #expect(compared > 250 && nonEmpty > 200, "\(compared) words, \(nonEmpty) with corrections")
    }

    /// The rule as READ_API.md says it, without shortcuts; the same choice among what is found.
    static func corrections(of typed: [Unicode.Scalar], in terms: [[Unicode.Scalar]]) -> [String] {
        var found = Set<[Unicode.Scalar]>()
        for term in terms {
            for length in max(1, typed.count - 1)...(typed.count + 1) where length <= term.count {
                let prefix = Array(term[0..<length])
                if distance(typed, prefix) == 1 { found.insert(prefix) }
            }
        }
        return SearchVocabulary.kept(found)
    }

    /// Optimal string alignment distance, the textbook table.
    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in stride(from: 1, through: a.count, by: 1) {
            for j in stride(from: 1, through: b.count, by: 1) {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1) }
            }
        }
        return table[a.count][b.count]
    }
}
