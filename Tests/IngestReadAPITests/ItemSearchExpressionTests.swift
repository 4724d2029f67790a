@testable import IngestReadAPI
import Testing

/// Search text of any kind becomes a query FTS5 accepts, of the same words.
@Suite struct ItemSearchExpressionTests {
    @Test func wordsBecomeRequiredPrefixesOfTheName() {
        #expect(ItemSearchExpression.match("doxy-m*") == #"name : ("doxy"* AND "m"*)"#)
        #expect(ItemSearchExpression.match("  IBU  ") == #"name : ("IBU"*)"#)
        #expect(ItemSearchExpression.match("õrn šamp") == #"name : ("õrn"* AND "šamp"*)"#)
        #expect(ItemSearchExpression.match("\"name\": NEAR(a b) OR ^x") == #"name : ("name"* AND "NEAR"* AND "a"* AND "b"* AND "OR"* AND "x"*)"#)
    }

    @Test func textWithoutWordsIsNoSearch() {
        for text in ["", "   ", "*", "\"\"", "-+()^:", "…"] { #expect(ItemSearchExpression.match(text) == nil, "\(text)") }
    }

    @Test func aLongTextKeepsItsFirstSixteenWords() {
        let words = (1...40).map { "w\($0)" }.joined(separator: " ")
        #expect(ItemSearchExpression.match(words)?.components(separatedBy: " AND ").count == 16)
    }
}
