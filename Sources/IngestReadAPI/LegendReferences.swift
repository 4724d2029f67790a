/// Which legend abbreviations a tier's conditions use (`diagExpl`): an
/// abbreviation occurs where it stands as a whole word (`rv` in
/// `*rv dermatoveneroloogil`, not in `arvuti`), case as written. In order
/// of first occurrence across the texts, each once.
enum LegendReferences {
    static func explained(in texts: [String], legend: [(code: String, text: String)]) -> [(code: String, text: String)] {
        let meanings = Dictionary(legend.map { ($0.code, $0.text) }, uniquingKeysWith: { first, _ in first })
        var seen = Set<String>()
        var found: [(String, String)] = []
        for text in texts {
            for word in ItemSearchText.words(text) where seen.insert(word).inserted {
                if let meaning = meanings[word] { found.append((word, meaning)) }
            }
        }
        return found
    }
}
