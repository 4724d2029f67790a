import Testing
@testable import IngestCore

@Suite struct CheckDigitTests {
    @Test(arguments: ["1144976", "1012341", "1012352", "0000000"])
    func validPackageCodes(code: String) { #expect(PackageCode.isValid(code)) }

    @Test(arguments: ["1144975", "114497", "11449766", "114497A", ""])
    func invalidPackageCodes(code: String) { #expect(!PackageCode.isValid(code)) }

    @Test func gtinsAreNormalisedToFourteenDigits() {
        #expect(GTIN.normalize("4740086000124") == .success("04740086000124"))
        #expect(GTIN.normalize("14740086000121") == .success("14740086000121"))
        #expect(GTIN.normalize(" 96385074 ") == .success("00000096385074"))
        #expect(GTIN.normalize("036000291452") == .success("00036000291452"))
    }

    @Test func badGTINsSayWhy() {
        #expect(GTIN.normalize("4740086000125") == .failure(.badCheckDigit))
        #expect(GTIN.normalize("474008600012") == .failure(.badCheckDigit))
        #expect(GTIN.normalize("47400860001") == .failure(.badShape))
        #expect(GTIN.normalize("474008600012X") == .failure(.badShape))
    }

    @Test func restrictedPrefixesAreFlagged() {
        func restricted(_ gtin: String) -> Bool { GTIN.isRestricted(try! GTIN.normalize(gtin).get()) }
        #expect(!restricted("4740086000124"))
        #expect(restricted("2001234567893"))   // 200–299 restricted circulation
        #expect(restricted("9771234567003"))   // ISSN
        #expect(restricted("9781234567897"))   // ISBN
        #expect(restricted("9901234567899"))   // coupon
        #expect(restricted("0212345678909"))   // 020–029
        #expect(restricted("20123451"))        // GTIN-8 starting with 2
        #expect(!restricted("96385074"))
    }
}
