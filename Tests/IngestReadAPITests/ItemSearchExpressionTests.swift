@testable import IngestReadAPI
import Testing

/// Search text of any kind becomes a query FTS5 accepts, of the same words.
@Suite struct ItemSearchExpressionTests {
    @Test func wordsBecomeRequiredPrefixesOfNameProducerOrSubstance() {
        #expect(ItemSearchExpression.match("doxy-m*") == #"{name producer active_substance} : ("doxy"* AND "m"*)"#)
        #expect(ItemSearchExpression.match("  IBU  ") == #"{name producer active_substance} : ("IBU"*)"#)
        #expect(ItemSearchExpression.match("õrn šamp") == #"{name producer active_substance} : ("õrn"* AND "šamp"*)"#)
        #expect(ItemSearchExpression.match("\"name\": NEAR(a b) OR ^x") == #"{name producer active_substance} : ("name"* AND "NEAR"* AND "a"* AND "b"* AND "OR"* AND "x"*)"#)
    }

    @Test func textWithoutWordsIsNoSearch() {
        for text in ["", "   ", "*", "\"\"", "-+()^:", "…"] { #expect(ItemSearchExpression.match(text) == nil, "\(text)") }
    }

    @Test func aLongTextKeepsItsFirstSixteenWords() {
        let words = (1...40).map { "w\($0)" }.joined(separator: " ")
        #expect(ItemSearchExpression.match(words)?.components(separatedBy: " AND ").count == 16)
    }
}
