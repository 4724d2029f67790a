import Foundation
import IngestAdapters
import IngestCore
import IngestSnapshot

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
                                    digest: TableDigest().value, head: [])

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
        /// The feed's item lines (aptcode, price, quantity), in any order the same.
        private var digest = TableDigest()
        private(set) var head: [StockOffer] = []

        mutating func add(_ offer: StockOffer) {
            count += 1
            if offer.quantity != 0 { zero = false }
            if offer.quantity != nil { absent = false }
            digest.add(StockLoader.itemLine(aptcode: offer.aptcode, priceCents: offer.priceCents, quantity: offer.quantity))
            if head.count < SortedOffers.headCount { head.append(offer) }
        }

        func build(_ storage: Storage) -> SortedOffers {
            SortedOffers(storage: storage, count: count, allQuantitiesZero: count > 0 && zero, allQuantitiesAbsent: count > 0 && absent,
                         digest: digest.value, head: head)
        }
    }
}
