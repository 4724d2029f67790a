import IngestCore

/// The world a generated feeds folder describes: items, the ATC tree,
/// ICD-10 codes, reimbursed packages and GS1 datasheets. Built from the seed
/// alone, before any file is written; every stock feed draws on it.
struct GeneratedCatalog: Sendable {
    struct Item: Sendable {
        var aptcode: String
        var name: String
        var producer: String
        var gtin: String          // 13 digits
        var packageCode: String?  // medicines only
        var atc: String?
        var substance: String?
        var baseCents: Int
        var vatPercent: Int
    }

    struct ATCEntry: Sendable { var code: String; var name: String }
    struct Package: Sendable { var code: String; var limitCents: Int?; var tiers: [(rate: Int, diagnoses: String?, info: String?)] }

    var items: [Item] = []
    var atc: [ATCEntry] = []
    var icd10: [(code: String, name: String)] = []
    var packages: [Package] = []

    static let syllables = ["ra", "vi", "mo", "lä", "sõ", "kü", "ta", "pe", "no", "ši", "žu", "ve", "li", "ma", "ö", "an", "ter", "kol", "dor", "min"]
    static let forms = ["TBL 400MG N10", "TBL 200MG N20", "KAPS N30", "SIIRUP 100ML", "KREEM 50G", "GEEL 30G", "TILGAD 10ML", "PULBER N10"]
    static let producers = ["NYCOMED", "RATIOPHARM GmbH", "ŽIRAF OÜ", "Grindeks", "Rīgas Farmaceitiskā Fabrika", "MÖLLER'S",
                            "Tervise Tehas AS", "Orion Pharma", "KRKA d.d.", "Sandoz", "Teva", "Õnne Labor OÜ", "Vitabalans", "Berlin-Chemie"]
    static let substances = ["Ibuprofenum", "Paracetamolum", "Doxycyclinum", "Amoxicillinum", "Metforminum", "Atorvastatinum",
                             "Omeprazolum", "Salbutamolum", "Levothyroxinum", "Diclofenacum"]

    static func word(_ random: inout SeededRandom, syllables count: Int) -> String {
        (0..<count).map { _ in random.pick(syllables) }.joined()
    }

    static func withCheckDigit(gtin12 body: String) -> String {
        let digits = body.utf8.map { Int($0 - 48) }
        var sum = 0
        for (offset, digit) in digits.reversed().enumerated() { sum += digit * (offset % 2 == 0 ? 3 : 1) }
        return body + String((10 - sum % 10) % 10)
    }

    static func packageCode(_ number: Int) -> String {
        let six = String(format: "%06d", number % 1_000_000)
        let sum = six.utf8.reduce(0) { $0 + Int($1 - 48) }
        return six + String(sum % 10)
    }

    init(items count: Int, seed: UInt64) {
        var random = SeededRandom(seed: seed, stream: 1)
        // ATC: 14 main groups, each 2 × 2 × 2 × 3 deep.
        let mains = Array("ABCDGHJLMNPRSV").map(String.init)
        for main in mains {
            atc.append(.init(code: main, name: Self.word(&random, syllables: 3).uppercased() + " SÜSTEEM"))
            for a in 1...2 {
                let l2 = main + String(format: "%02d", a)
                atc.append(.init(code: l2, name: Self.word(&random, syllables: 3).uppercased()))
                for b in ["A", "B"] {
                    let l3 = l2 + b
                    atc.append(.init(code: l3, name: Self.word(&random, syllables: 3).capitalized))
                    for c in ["A", "B"] {
                        let l4 = l3 + c
                        atc.append(.init(code: l4, name: Self.word(&random, syllables: 2).capitalized + "i derivaadid"))
                        for d in 1...3 {
                            atc.append(.init(code: l4 + String(format: "%02d", d), name: Self.word(&random, syllables: 3).capitalized))
                        }
                    }
                }
            }
        }
        let leaves = atc.map(\.code).filter { $0.count == 7 }
        // ICD-10: three-character codes and some subdivisions.
        for letter in Array("ACDEGIJKLMNO") {
            for number in stride(from: 0, to: 100, by: 7) {
                icd10.append((String(letter) + String(format: "%02d", number), Self.word(&random, syllables: 4).capitalized))
                if number % 3 == 0 {
                    icd10.append((String(letter) + String(format: "%02d.%d", number, number % 10), Self.word(&random, syllables: 4).capitalized))
                }
            }
        }
        // Every code the published notations below use, so diagnoses resolve.
        for code in ["A50", "A53", "I21", "I22", "I25.2", "E10", "E11", "E13", "E14", "E89.1", "O24", "M05", "M06", "M08", "M45",
                     "L40.5", "C00", "C97", "D00", "D09", "G35", "J45", "J46"] where !icd10.contains(where: { $0.code == code }) {
            icd10.append((code, Self.word(&random, syllables: 4).capitalized))
        }
        for index in 0..<count {
            let medicine = index % 5 < 2
            let name = (Self.word(&random, syllables: 2) + Self.word(&random, syllables: 2)).uppercased()
            var form = random.pick(Self.forms)
            let producer = random.pick(Self.producers)
            var atc = medicine ? random.pick(leaves) : nil
            // Every tenth item is another maker's version of the medicine five
            // before it: the same ATC code and form, so the register has
            // equivalents (`?q=eq`) in databases of any size.
            if index >= 10, index % 10 == 0 {
                let original = items[index - 5]
                (atc, form) = (original.atc, Self.forms.first { original.name.hasSuffix(" " + $0) } ?? form)
            }
            items.append(Item(
                aptcode: String(format: "MM%07d", index), name: name + " " + form, producer: producer,
                gtin: Self.withCheckDigit(gtin12: "474" + String(format: "%09d", index)),
                packageCode: medicine ? Self.packageCode(100_000 + index) : nil,
                atc: atc, substance: medicine ? random.pick(Self.substances) : nil,
                baseCents: random.int(50...9_000), vatPercent: medicine ? 9 : 22))
        }
        // Half the medicines are reimbursed, with tiers and diagnoses in every published notation.
        let notations = ["(A50-A53)*", "I21*; I22*; I25.2*", "E10-E11; E13-14; E89.1; O24", "M05-M06; M08, M45*, L40.5",
                         "C00-C97, D00-D09**", "G35***", "J45; J46*"]
        let tierSets: [[Int]] = [[50], [75], [100], [50, 100], [75, 100], [50, 75]]
        for (index, item) in items.enumerated() where item.packageCode != nil && index % 2 == 0 {
            let rates = tierSets[index % tierSets.count]
            packages.append(Package(
                code: item.packageCode!, limitCents: index % 7 == 0 ? nil : max(10, item.baseCents * random.int(70...110) / 100),
                tiers: rates.map { rate in
                    guard rate != 50 else { return (rate, nil, nil) }
                    let notation = notations[(index + rate) % notations.count]
                    let info = notation.contains("***") ? "***rv neuroloogil" : notation.contains("**") ? "**rv onkoloogil"
                        : notation.contains("*") ? "*rv eriarstil (e)" : nil
                    return (rate, notation, info)
                }))
        }
    }
}
