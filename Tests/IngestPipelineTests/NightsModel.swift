import Foundation
import IngestGenerator

/// The multi-night model (issue 32): a small world, a seeded scenario of
/// nights, and an oracle that says what every published snapshot must hold.
///
/// The oracle is written from SNAPSHOT.md and FEEDS.md, not from the
/// pipeline: it knows the rules (time only moves forward, carry-over and its
/// limit, stale, duplicate stock, the list in force, tier prices by §7's
/// formula, items merged across nights), keeps its own state per published
/// version, and never calls the importer's code. The feeds it writes are
/// plain text built here too.
enum NightsModel {
    // MARK: The world

    struct Item: Equatable {
        var aptcode: String
        var packageCode: String?
        var name: String
        var producer: String
        var atc: String
        var substance: String
        /// Net price in cents at the start; nights move it a little.
        var baseCents: Int64
    }

    /// Registered pharmacies, and one the registry does not know.
    static let registered = ["101", "102", "103", "104", "105", "106"]
    static let unregistered = "199"
    static let pharmacies = registered + [unregistered]
    static let unregisteredName = "APTEEK KAUGEL"

    /// FEEDS.md §6: six digits and the last digit of their sum.
    static func packageCode(_ six: String) -> String {
        six + String(six.compactMap(\.wholeNumberValue).reduce(0, +) % 10)
    }

    static let items: [Item] = (1...10).map(item)

    /// The item whose name the producers correct (SNAPSHOT.md, schema 5: tonight's feeds are believed).
    static let correctedAptcode = "MM0000001"

    /// An item's name as feeds write it on night `night` of a scenario whose correction comes on `correctionNight`.
    static func name(of item: Item, night: Int, correctionNight: Int) -> String {
        item.aptcode == correctedAptcode && night >= correctionNight ? item.name + " UUS" : item.name
    }

    /// Item `index`: the first six are medicines with a package code.
    static func item(_ index: Int) -> Item {
        let code: String? = index <= 6 ? packageCode(String(200_000 + index * 7)) : nil
        let base = Int64(300 + index * 173)
        return Item(aptcode: String(format: "MM%07d", index), packageCode: code, name: "TOODE \(index) TBL N\(index * 10)",
                    producer: "TOOTJA \(index % 3)", atc: "N02BE0\(index % 9 + 1)", substance: "Substantia \(index)", baseCents: base)
    }

    /// A reimbursement list: package code → limit price and listed rates.
    struct ListEntry: Equatable {
        var limitCents: Int64
        var rates: [Int]
    }

    struct ReimbursementList {
        var validFrom: String
        var entries: [String: ListEntry]
    }

    /// Two lists: the first from January, the second from a night of the scenario.
    static func lists(secondFrom: String) -> [ReimbursementList] {
        let codes = items.compactMap(\.packageCode)
        return [
            ReimbursementList(validFrom: "2025-01-01", entries: [
                codes[0]: ListEntry(limitCents: 500, rates: [50, 100]),
                codes[1]: ListEntry(limitCents: 620, rates: [75]),
                codes[2]: ListEntry(limitCents: 900, rates: [50, 75, 100]),
                codes[3]: ListEntry(limitCents: 1400, rates: [100]),
            ]),
            ReimbursementList(validFrom: secondFrom, entries: [
                codes[0]: ListEntry(limitCents: 450, rates: [50, 75]),
                codes[2]: ListEntry(limitCents: 1000, rates: [100]),
                codes[4]: ListEntry(limitCents: 1300, rates: [50, 75, 100]),
                codes[5]: ListEntry(limitCents: 700, rates: [75, 100]),
            ]),
        ]
    }

    // MARK: The scenario

    enum Format: String, CaseIterable { case rax31, rax32, noom }

    enum Event: Equatable, CustomStringConvertible {
        /// A new export tonight.
        case send(Format)
        /// No file.
        case missing
        /// An export of an earlier night sent again (its own file, byte for byte).
        case replay
        /// Dated two days after the run.
        case future
        /// A RAX file cut short (no trailer).
        case truncated
        /// Tonight's stock of another pharmacy under this one's id, a minute newer.
        case copyOf(String)

        var description: String {
            switch self {
            case .send(let format): return format.rawValue
            case .missing: return "missing"
            case .replay: return "replay"
            case .future: return "future"
            case .truncated: return "truncated"
            case .copyOf(let other): return "copy-of-\(other)"
            }
        }
    }

    struct Night: Equatable {
        var events: [String: Event]
        /// The registry file's names get a suffix tonight (and keep it after).
        var registryRename = false
        /// Run the night again three hours later (a cron retry).
        var rerun = false
        /// After the run, `current` goes back to the version before.
        var rollback = false
        /// Before the run, `current` is replaced by a regular file (then restored).
        var damageCurrent = false
    }

    struct Scenario: CustomStringConvertible {
        var seed: UInt64
        var nights: [Night]
        /// The night from which the second reimbursement list is in force.
        var secondListNight: Int
        /// After night 0, current is made to look as the previous schema wrote it.
        var upgradeAfterFirstNight: Bool
        /// From this night on feeds send `correctedAptcode` under a corrected name.
        var nameCorrectionNight: Int { 1 + Int(seed % UInt64(max(1, nights.count - 1))) }

        var description: String {
            var lines = ["seed \(seed), second list from night \(secondListNight)\(upgradeAfterFirstNight ? ", upgrade after night 0" : ""), \(NightsModel.correctedAptcode) renamed from night \(nameCorrectionNight)"]
            for (number, night) in nights.enumerated() {
                let events = NightsModel.pharmacies.map { "\($0) \(night.events[$0]!)" }.joined(separator: ", ")
                var flags: [String] = []
                if night.registryRename { flags.append("registry renamed") }
                if night.rerun { flags.append("re-run") }
                if night.rollback { flags.append("rollback after") }
                if night.damageCurrent { flags.append("current damaged before") }
                lines.append("night \(number): \(events)" + (flags.isEmpty ? "" : "; " + flags.joined(separator: ", ")))
            }
            return lines.joined(separator: "\n")
        }

        /// A scenario of `count` nights from `seed`: every pharmacy sends on night 0.
        init(seed: UInt64, count: Int) {
            var random = SeededRandom(rawState: seed)
            self.seed = seed
            secondListNight = 1 + Int(random.next() % UInt64(max(1, count - 1)))
            upgradeAfterFirstNight = random.next() % 2 == 0
            nights = (0..<count).map { number in
                var events: [String: Event] = [:]
                for id in NightsModel.pharmacies {
                    let format = Format.allCases[Int(random.next() % 3)]
                    guard number > 0 else {
                        events[id] = .send(format)
                        continue
                    }
                    switch random.next() % 100 {
                    case 0..<55: events[id] = .send(format)
                    case 55..<75: events[id] = .missing
                    case 75..<82: events[id] = .replay
                    case 82..<87: events[id] = .future
                    case 87..<93: events[id] = .truncated
                    default: events[id] = .copyOf("") // the original is chosen below, among tonight's senders
                    }
                }
                let senders = NightsModel.pharmacies.filter { if case .send = events[$0]! { return true } else { return false } }
                for id in NightsModel.pharmacies where events[id] == .copyOf("") {
                    events[id] = senders.filter { $0 != id }.isEmpty ? .missing
                        : .copyOf(senders.filter { $0 != id }[Int(random.next() % UInt64(senders.filter { $0 != id }.count))])
                }
                var night = Night(events: events)
                if number > 0 {
                    night.registryRename = random.next() % 5 == 0
                    night.rerun = random.next() % 4 == 0
                    night.rollback = random.next() % 7 == 0
                    night.damageCurrent = random.next() % 9 == 0
                }
                return night
            }
        }

        init(seed: UInt64, nights: [Night], secondListNight: Int, upgradeAfterFirstNight: Bool) {
            self.seed = seed
            self.nights = nights
            self.secondListNight = secondListNight
            self.upgradeAfterFirstNight = upgradeAfterFirstNight
        }

        /// Smaller scenarios that may still fail: fewer nights, then one event
        /// or flag at a time made plain (a send in RAX 3.2, no flag).
        func shrinkCandidates() -> [Scenario] {
            var candidates: [Scenario] = []
            if nights.count > 1 {
                candidates.append(Scenario(seed: seed, nights: Array(nights.dropLast()), secondListNight: secondListNight,
                                           upgradeAfterFirstNight: upgradeAfterFirstNight))
            }
            if upgradeAfterFirstNight {
                candidates.append(Scenario(seed: seed, nights: nights, secondListNight: secondListNight, upgradeAfterFirstNight: false))
            }
            for (number, night) in nights.enumerated() {
                for id in NightsModel.pharmacies where night.events[id] != .send(.rax32) {
                    // An original that a copy names must stay a sender.
                    if night.events.values.contains(.copyOf(id)) { continue }
                    var plain = self
                    plain.nights[number].events[id] = .send(.rax32)
                    candidates.append(plain)
                }
                for flag in [\Night.registryRename, \Night.rerun, \Night.rollback, \Night.damageCurrent] where night[keyPath: flag] {
                    var plain = self
                    plain.nights[number][keyPath: flag] = false
                    candidates.append(plain)
                }
            }
            return candidates
        }
    }

    // MARK: Time

    /// Night `n`'s exports: 23:05 in Tallinn (UTC+2 all November and December) on 2025-11-20 + n.
    static func exportEpoch(night: Int) -> Int64 { 1_763_672_700 + Int64(night) * 86_400 }
    /// Night `n`'s run: 06:00 in Tallinn the morning after (+ `hours`).
    static func runEpoch(night: Int, hours: Int = 0) -> Int64 { 1_763_697_600 + Int64(night) * 86_400 + Int64(hours) * 3_600 }

    /// `YYYY-MM-DDTHH:MM:SS+02:00`, Tallinn's winter time.
    static func iso(_ epoch: Int64) -> String {
        let local = epoch + 7_200
        let (days, seconds) = (local / 86_400, local % 86_400)
        let (year, month, day) = civil(days)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d+02:00", year, month, day, seconds / 3600, seconds % 3600 / 60, seconds % 60)
    }

    static func localDate(_ epoch: Int64) -> String { String(iso(epoch).prefix(10)) }

    /// `YYYYMMDDTHHMM` for a RAX header.
    static func compact(_ epoch: Int64) -> String {
        let text = iso(epoch)
        return text.prefix(10).replacingOccurrences(of: "-", with: "") + "T" + text.dropFirst(11).prefix(5).replacingOccurrences(of: ":", with: "")
    }

    /// Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    static func civil(_ days: Int64) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (Int(yoe + era * 400 + (month <= 2 ? 1 : 0)), Int(month), Int(day))
    }

    // MARK: Stock

    /// One pharmacy's stock as a feed gives it: shelf prices in cents.
    struct Offer: Equatable {
        var aptcode: String
        var netCents: Int64
        var quantity: Int64
        /// FEEDS.md §2 for Noom (net × 1.09, half-up); RAX gives the shelf price itself.
        func shelfCents(_ format: Format) -> Int64 { format == .noom ? (netCents * 109 + 50) / 100 : netCents }
    }

    /// The stock pharmacy `id` exports on night `night`: 6 to 10 of the items (a
    /// fall of at most 40 %, under the item-count check), prices within ±10 %.
    static func stock(_ id: String, night: Int, seed: UInt64) -> [Offer] {
        var random = SeededRandom(rawState: seed &* 1_000_003 &+ UInt64(night) &* 7919 &+ UInt64(Int(id) ?? 0))
        let count = 6 + Int(random.next() % 5)
        var chosen = items.indices.map { $0 }
        for index in chosen.indices.reversed() { chosen.swapAt(index, Int(random.next() % UInt64(index + 1))) }
        return chosen.prefix(count).sorted().map { index in
            let item = items[index]
            let move = Int64(random.next() % 21) - 10
            return Offer(aptcode: item.aptcode, netCents: item.baseCents * (100 + move) / 100, quantity: Int64(random.next() % 40) + 1)
        }
    }

    /// A feed in `format`: RAX in Windows-1257 (ASCII here), Noom in UTF-8.
    /// `names`: the items' names as this night's feeds write them.
    static func feed(_ format: Format, id: String, name: String, exported: Int64, offers: [Offer], names: [String: String],
                     truncated: Bool = false) -> (name: String, bytes: Data) {
        let byCode = Dictionary(uniqueKeysWithValues: items.map { ($0.aptcode, $0) })
        switch format {
        case .rax31, .rax32:
            let version = format == .rax31 ? "3.1" : "3.2"
            var lines = ["H;RAX;\(version);\(id);\(name);\(compact(exported));EUR"]
            for offer in offers {
                let item = byCode[offer.aptcode]!
                let price = "\(offer.netCents / 100),\(String(format: "%02d", offer.netCents % 100))"
                let fields = version == "3.1"
                    ? ["I", item.aptcode, "", names[item.aptcode] ?? item.name, item.producer, item.atc, item.substance, price, "\(offer.quantity)"]
                    : ["I", item.aptcode, item.packageCode ?? "", "", names[item.aptcode] ?? item.name, item.producer, item.atc, item.substance, price, "\(offer.quantity)"]
                lines.append(fields.joined(separator: ";"))
            }
            if !truncated { lines.append("T;\(offers.count);\(offers.reduce(0) { $0 + $1.quantity })") }
            return ("rax_\(id)_\(compact(exported)).txt", Data((lines.joined(separator: "\r\n") + "\r\n").utf8))
        case .noom:
            var xml = """
                <?xml version="1.0" encoding="UTF-8"?>
                <stockExport xmlns="urn:noom:stock:2" version="2.1" generated="\(iso(exported))">
                  <pharmacy id="\(id)">\(name)</pharmacy>
                  <items currency="EUR">

                """
            for offer in offers {
                let item = byCode[offer.aptcode]!
                let package = item.packageCode.map { " packageCode=\"\($0)\"" } ?? ""
                xml += """
                    <item aptcode="\(item.aptcode)"\(package)><name>\(names[item.aptcode] ?? item.name)</name><producer>\(item.producer)</producer><atc>\(item.atc)</atc><substance>\(item.substance)</substance><price net="\(offer.netCents / 100).\(String(format: "%02d", offer.netCents % 100))" vatRate="9"/><stock>\(offer.quantity)</stock></item>

                """
            }
            xml += "  </items>\n  <summary itemCount=\"\(offers.count)\"/>\n</stockExport>\n"
            return ("noom_\(id)_\(compact(exported)).xml", Data(xml.utf8))
        }
    }

    // MARK: The oracle's state

    struct Pharmacy: Equatable {
        var name: String
        var region: String
        var lastRefresh: Int64
        /// The run that loaded the data (its as-of time).
        var loadedAt: Int64
        var stale: Bool
        /// Shelf prices and quantities by aptcode.
        var offers: [String: (cents: Int64, quantity: Int64)]

        static func == (a: Pharmacy, b: Pharmacy) -> Bool {
            a.name == b.name && a.region == b.region && a.lastRefresh == b.lastRefresh && a.loadedAt == b.loadedAt && a.stale == b.stale
                && a.offers.mapValues { [$0.cents, $0.quantity] } == b.offers.mapValues { [$0.cents, $0.quantity] }
        }
    }

    /// What a published snapshot holds, as far as the oracle follows it.
    struct State: Equatable {
        var pharmacies: [String: Pharmacy] = [:]
        /// Items by aptcode: package code (nil until some mention gives it).
        var itemPackages: [String: String?] = [:]
        /// Items by aptcode: name.
        var itemNames: [String: String] = [:]
        /// Price history by "pharmacy aptcode": (since, shelf price), oldest first.
        var history: [String: [[Int64]]] = [:]
    }

    /// What a pharmacy's file tonight is, seen by the rules.
    struct Sent {
        var format: Format
        /// The night the file was written (its items' names are that night's).
        var night: Int
        var exported: Int64
        var offers: [Offer]
        var file: (name: String, bytes: Data)
    }

    static let maxStaleDays: Int64 = 3

    /// FEEDS.md §7 with 2025's fee: fund = round_half_up(r × max(0, min(P, L) − F)), patient = P − fund.
    static func patientPrice(shelf: Int64, limit: Int64, rate: Int64, fee: Int64 = 350) -> Int64 {
        let covered = max(0, min(shelf, limit) - fee)
        return shelf - (rate * covered + 50) / 100
    }

    /// The offers row the snapshot must hold: pharmacy, aptcode, price, quantity, limit, 50, 75, 90, 100.
    static func offerRow(pharmacy: String, aptcode: String, cents: Int64, quantity: Int64, package: String?, list: ReimbursementList) -> [String?] {
        var row: [String?] = [pharmacy, aptcode, "\(cents)", "\(quantity)"]
        guard let package, let entry = list.entries[package] else { return row + [nil, nil, nil, nil, nil] }
        row.append("\(entry.limitCents)")
        let rates = entry.rates + (entry.rates.contains(75) ? [90] : [])
        for rate in [50, 75, 90, 100] {
            row.append(rates.contains(rate) ? "\(patientPrice(shelf: cents, limit: entry.limitCents, rate: Int64(rate)))" : nil)
        }
        return row
    }
}
