import Foundation
import IngestAdapters
import IngestCore

/// One feed's accepted offers in key order (aptcode by bytes), each aptcode
/// once, with what the checks need to know of them gathered on the way: a
/// feed of any size is then read by the writer a buffer at a time.
///
/// Small feeds (every pharmacy's nightly export) stay in memory; a feed
/// larger than one sort run lies in a spill file in the run's staging area.
struct SortedOffers: Sendable {
    enum Storage: Sendable {
        case memory([StockOffer])
        case file(String)
    }

    /// How many of the first offers `head` keeps (the price check's sample).
    static let headCount = 256

    let storage: Storage
    let count: Int
    /// Every offer has quantity 0 (and there is at least one).
    let allQuantitiesZero: Bool
    /// No offer reports a quantity (a price list).
    let allQuantitiesAbsent: Bool
    let digest: UInt64
    /// The first `headCount` offers.
    let head: [StockOffer]

    static let empty = SortedOffers(storage: .memory([]), count: 0, allQuantitiesZero: false, allQuantitiesAbsent: false,
                                    digest: StockDigest().value, head: [])

    /// Every offer in key order.
    func forEach(_ body: (StockOffer) throws -> Void) throws {
        switch storage {
        case .memory(let offers):
            for index in offers.indices { try body(offers[index]) }
        case .file(let path):
            try OfferSpill.read(path: path, body)
        }
    }

    /// Removes the spill file (after the writer took the offers, or when the feed is rejected).
    func discard() {
        if case .file(let path) = storage { unlink(path) }
    }

    /// Gathers the statistics while offers arrive in key order.
    struct Builder {
        private(set) var count = 0
        private var zero = true
        private var absent = true
        private var digest = StockDigest()
        private(set) var head: [StockOffer] = []

        mutating func add(_ offer: StockOffer) {
            count += 1
            if offer.quantity != 0 { zero = false }
            if offer.quantity != nil { absent = false }
            digest.add(offer)
            if head.count < SortedOffers.headCount { head.append(offer) }
        }

        func build(_ storage: Storage) -> SortedOffers {
            SortedOffers(storage: storage, count: count, allQuantitiesZero: count > 0 && zero, allQuantitiesAbsent: count > 0 && absent,
                         digest: digest.value, head: head)
        }
    }
}

/// An order-free digest of a feed's item lines (aptcode, price, quantity),
/// to find one pharmacy's stock sent under another's id (`duplicate_stock`).
struct StockDigest {
    private var sum: UInt64 = 0
    private var mix: UInt64 = 0

    mutating func add(_ offer: StockOffer) {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        var aptcode = offer.aptcode
        aptcode.withUTF8 { for byte in $0 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 } }
        hash = (hash ^ UInt64(bitPattern: offer.priceCents)) &* 0x100_0000_01B3
        hash = (hash ^ UInt64(bitPattern: offer.quantity ?? -1)) &* 0x100_0000_01B3
        // Two order-free combinations, so a collision needs both to match.
        sum &+= hash
        mix ^= hash &* 0x9E37_79B9_7F4A_7C15
    }

    var value: UInt64 { sum ^ (mix << 1 | mix >> 63) }
}
