@testable import IngestReadAPI
import Testing

/// Search text of any kind becomes a query FTS5 accepts, of the same words
/// (READ_API.md Version 2), read as Version 3 reads it: NFC, numbers with
/// their units, typos corrected against the catalogue's words.
@Suite struct ItemSearchTextTests {
    private func all(_ text: String, corrections: [String: [String]] = [:]) -> String? {
        ItemSearchText(text).expression(.all, corrections: corrections)
    }

    @Test func wordsBecomeRequiredPrefixesOfNameProducerOrSubstance() {
        #expect(all("doxy-m*") == #"{name producer active_substance} : ("doxy"* AND "m"*)"#)
        #expect(all("  IBU  ") == #"{name producer active_substance} : ("IBU"*)"#)
        #expect(all("õrn šamp") == #"{name producer active_substance} : ("õrn"* AND "šamp"*)"#)
        #expect(all("\"name\": NEAR(a b) OR ^x") == #"{name producer active_substance} : ("name"* AND "NEAR"* AND "a"* AND "b"* AND "OR"* AND "x"*)"#)
    }

    @Test func decomposedLettersAreComposed() {
        // o + U+0303 COMBINING TILDE, s + U+030C COMBINING CARON: one word each, composed.
        #expect(all("o\u{303}rn s\u{30C}amp") == #"{name producer active_substance} : ("õrn"* AND "šamp"*)"#)
    }

    @Test func aNumberAndItsUnitAreOneTermWhateverTheSpacingAndCase() {
        let quantity = #"{name producer active_substance} : ("ibumetin"* AND ("400mg"* OR "400 mg"*))"#
        for text in ["ibumetin 400 mg", "ibumetin 400mg", "ibumetin 400 Mg", "ibumetin 400MG", "ibumetin   400  mG"] {
            #expect(all(text) == quantity, "\(text)")
        }
        // A number without a unit, and a word that is not a unit, stay words.
        #expect(all("400 forte") == #"{name producer active_substance} : ("400"* AND "forte"*)"#)
        #expect(all("N30 2x10") == #"{name producer active_substance} : ("N30"* AND "2x10"*)"#)
        #expect(all("0,5 ml") == #"{name producer active_substance} : ("0"* AND ("5ml"* OR "5 ml"*))"#)
    }

    @Test func nameOnlyAnchoredAndCorrectedForms() {
        let text = ItemSearchText("ibumetn 400 mg")
        #expect(text.correctableWords == ["ibumetn"])
        #expect(text.expression(.name, corrections: ["ibumetn": ["ibumet", "ibumetr"]])
            == #"{name} : (("ibumet"* OR "ibumetr"*) AND ("400mg"* OR "400 mg"*))"#)
        #expect(text.expression(.name, anchored: true) == #"{name} : (^"ibumetn"*)"#)
        #expect(ItemSearchText("400 mg").expression(.name, anchored: true) == #"{name} : ((^"400mg"* OR ^"400 mg"*))"#)
        #expect(ItemSearchText("ibu tab 2x10 õrn 1234").correctableWords == [], "three letters, and numbers, are never corrected")
        #expect(ItemSearchText("ibuprofeen tabl").correctableWords == ["ibuprofeen", "tabl"])
    }

    @Test func textWithoutWordsIsNoSearch() {
        for text in ["", "   ", "*", "\"\"", "-+()^:", "…"] { #expect(all(text) == nil, "\(text)") }
    }

    @Test func aLongTextKeepsItsFirstSixteenWords() {
        let words = (1...40).map { "w\($0)" }.joined(separator: " ")
        #expect(all(words)?.components(separatedBy: " AND ").count == 16)
    }

    @Test func typosAreCorrectedAgainstPrefixesOfTheCatalogueWords() {
        let vocabulary = SearchVocabulary(terms: ["ibumetin", "ibuprofen", "paracetamol", "sampoon", "orn", "tere", "tabl"])
        #expect(vocabulary.hasWord(startingWith: "IBU"))
        #expect(vocabulary.hasWord(startingWith: "ŠAMP"), "folded as the index folds")
        #expect(!vocabulary.hasWord(startingWith: "ibumetn"))
        #expect(vocabulary.corrections(of: "ibumetn") == ["ibumet"], "extra letter after a prefix: ibumet covers ibumetin")
        #expect(vocabulary.corrections(of: "ibuprofeen") == ["ibuprofen"], "the Estonian spelling")
        #expect(vocabulary.corrections(of: "paracetamoll") == ["paracetamol"])
        #expect(vocabulary.corrections(of: "ubimetin") == [], "two edits")
        #expect(vocabulary.corrections(of: "ibmuetin") == ["ibumetin"], "two neighbours swapped")
        #expect(vocabulary.corrections(of: "ibxmetin") == ["ibumetin"], "one letter wrong")
        #expect(vocabulary.corrections(of: "ibumtin") == ["ibumetin"], "one letter missing")
        #expect(vocabulary.corrections(of: "xyzzy") == [])
    }

    @Test func formsSendPlusForSpaceAndPercentEscapes() {
        #expect(QueryString.parameters("q=i&search=ibumetin+400+mg") == ["q": "i", "search": "ibumetin 400 mg"])
        #expect(QueryString.parameters("search=a%2Bb&search=second") == ["search": "a+b"], "%2B is a plus; the first value counts")
        #expect(QueryString.parameters("search=%C3%B5rn&flag&=x&%71=p") == ["search": "õrn", "flag": "", "": "x", "q": "p"])
        #expect(QueryString.parameters("search=%FF%zz") == ["search": "%FF%zz"], "escapes that are not UTF-8 stay as sent")
        #expect(QueryString.parameters(nil) == [:])
    }
}
