import IngestCore

/// Every word of the catalogue, folded as `items_folded` folds it, sorted:
/// what a search word is checked against before it is corrected
/// (READ_API.md, Version 3: "a query word of 4 letters or more that is the
/// prefix of no word in the catalogue is matched with one typo against word
/// prefixes"). Read once per opened snapshot from the index's `fts5vocab`;
/// a national catalogue holds some tens of thousands of words.
struct SearchVocabulary: Sendable {
    /// Every word's scalars one after another, sorted by their scalars (so
    /// prefixes are neighbours); word `i` is `scalars[starts[i]..<starts[i + 1]]`.
    /// Flat: an array per word was retained and released at each word of
    /// the scan in `corrections`, a third of a typo's time (perf).
    private let scalars: [Unicode.Scalar]
    private let starts: [Int]

    /// Alternatives kept per corrected word: a short word with a typo can be
    /// one edit from hundreds of prefixes, and the FTS5 query grows with each.
    static let maximumCorrections = 64

    init(terms: [String]) {
        let sorted = terms.map { Array($0.unicodeScalars) }.sorted { $0.lexicographicallyPrecedes($1) }
        scalars = sorted.flatMap { $0 }
        starts = sorted.reduce(into: [0]) { $0.append($0.last! + $1.count) }
    }

    var isEmpty: Bool { starts.count == 1 }
    private var count: Int { starts.count - 1 }

    /// Whether some catalogue word starts with `word` (folded here).
    func hasWord(startingWith word: String) -> Bool {
        let prefix = Array(CanonicalText.folded(word).unicodeScalars)
        return scalars.withUnsafeBufferPointer { all in
            func term(_ index: Int) -> UnsafeBufferPointer<Unicode.Scalar> { UnsafeBufferPointer(rebasing: all[starts[index]..<starts[index + 1]]) }
            var low = 0, high = count
            while low < high {
                let middle = (low + high) / 2
                if term(middle).lexicographicallyPrecedes(prefix) { low = middle + 1 } else { high = middle }
            }
            return low < count && term(low).starts(with: prefix)
        }
    }

    /// The prefixes of catalogue words one edit from `word` (folded): a
    /// letter missing, extra, wrong, or two neighbours swapped. A prefix that
    /// another one starts is left out (`ibumeti` covers `ibumetin`); at most
    /// `maximumCorrections`, the shortest first.
    func corrections(of word: String) -> [String] {
        let typed = Array(CanonicalText.folded(word).unicodeScalars)
        let length = typed.count
        var found = Set<[Unicode.Scalar]>()
        typed.withUnsafeBufferPointer { typed in
            scalars.withUnsafeBufferPointer { all in
                for index in 0..<count {
                    let term = UnsafeBufferPointer(rebasing: all[starts[index]..<starts[index + 1]])
                    // One edit leaves the first letter in place, or the second, or moves one of them by one:
                    // a prefix of two letters or more matching none of these is no candidate, checked in four loads.
                    if length >= 3, term.count >= 2, term[0] != typed[0], term[0] != typed[1], term[1] != typed[0], term[1] != typed[1] {
                        continue
                    }
                    for candidateLength in max(1, length - 1)...(length + 1) where candidateLength <= term.count {
                        if Self.oneEditApart(typed, term, length: candidateLength) { found.insert(Array(term[0..<candidateLength])) }
                    }
                }
            }
        }
        return Self.kept(found)
    }

    /// The corrections offered of those found: the shortest first, none
    /// that another starts, at most `maximumCorrections`.
    static func kept(_ found: Set<[Unicode.Scalar]>) -> [String] {
        let sorted = found.sorted { $0.count != $1.count ? $0.count < $1.count : $0.lexicographicallyPrecedes($1) }
        var kept: [[Unicode.Scalar]] = []
        for candidate in sorted where !kept.contains(where: { candidate.starts(with: $0) }) {
            kept.append(candidate)
            if kept.count == maximumCorrections { break }
        }
        return kept.map { String(String.UnicodeScalarView($0)) }
    }

    /// Whether `typed` is exactly one edit from the first `length` scalars of
    /// `term` (optimal string alignment: no edit is counted twice). Indexes
    /// in place: this runs for every word of the catalogue on each typo.
    static func oneEditApart(_ typed: UnsafeBufferPointer<Unicode.Scalar>, _ term: UnsafeBufferPointer<Unicode.Scalar>, length: Int) -> Bool {
        let count = typed.count
        var first = 0
        let shorter = min(count, length)
        while first < shorter, typed[first] == term[first] { first += 1 }
        func equal(_ typedFrom: Int, _ termFrom: Int, _ n: Int) -> Bool {
            var i = 0
            while i < n {
                if typed[typedFrom + i] != term[termFrom + i] { return false }
                i += 1
            }
            return true
        }
        switch count - length {
        case 0:
            guard first < count else { return false } // equal: not a typo
            if equal(first + 1, first + 1, count - first - 1) { return true } // one letter wrong
            return first + 1 < count && typed[first] == term[first + 1] && typed[first + 1] == term[first]
                && equal(first + 2, first + 2, count - first - 2) // two neighbours swapped
        case 1:
            return equal(first + 1, first, length - first) // one letter extra in what was typed
        case -1:
            return equal(first, first + 1, count - first) // one letter missing
        default:
            return false
        }
    }
}
