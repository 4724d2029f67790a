import IngestCore

/// A chain's export (FEEDS.md §3): the rows of several pharmacies in one
/// mapped CSV file, in a shuffled order, each pharmacy's rows and faults as
/// its own `StockFeedWriter` would write them. The ground truth counts each
/// pharmacy on its own, as the importer reports a chain file.
struct ChainFeedWriter: Sendable {
    /// The chain's pharmacies (format `.chain`), in id order.
    let pharmacies: [StockFeedWriter]
    let seed: UInt64
    /// Its place among the run's chain files, for the name and the shuffle.
    let number: Int

    var fileName: String {
        let t = pharmacies[0].exportParts
        return String(format: "chain_all%03d_%04d-%02d-%02d.csv", number, t.year, t.month, t.day)
    }

    /// Writes the file; returns each pharmacy's expected counts.
    func write(to directory: String, maxRejectRate: Int) throws -> [String: GroundTruth.Feed] {
        let lines = pharmacies.map { $0.lines() }
        // Every (pharmacy, line) pair once, shuffled (Fisher–Yates on the seeded stream).
        var order: [(pharmacy: Int, line: Int)] = []
        order.reserveCapacity(lines.reduce(0) { $0 + $1.count })
        for (pharmacy, rows) in lines.enumerated() { for line in rows.indices { order.append((pharmacy, line)) } }
        var random = SeededRandom(seed: seed, stream: 5000 + UInt64(number))
        for index in order.indices.dropLast().reversed() {
            order.swapAt(index + 1, random.int(0...(index + 1)))
        }
        var truths = Array(repeating: GroundTruth.Feed(), count: pharmacies.count)
        var sink = try ByteSink(path: "\(directory)/\(fileName)")
        defer { sink.close() }
        sink.append([0xEF, 0xBB, 0xBF])
        sink.append(StockFeedWriter.csvHeader.joined(separator: ";") + "\r\n")
        for (pharmacy, line) in order {
            let row = lines[pharmacy][line]
            // A duplicate repeats the pharmacy's first item, as in its own file (which of the two the
            // importer keeps depends on the order; the counts do not).
            sink.append(pharmacies[pharmacy].csvRow(row, first: lines[pharmacy][0].item.aptcode))
            pharmacies[pharmacy].count(row, &truths[pharmacy])
        }
        var result: [String: GroundTruth.Feed] = [:]
        for (writer, var truth) in zip(pharmacies, truths) {
            if truth.read > 0, truth.rejected * 100 > maxRejectRate * truth.read { truth.rejectWhole("reject_rate_exceeded") }
            truth.pharmacyID = writer.pharmacyID
            result[GroundTruth.key(file: fileName, pharmacyID: writer.pharmacyID)] = truth
        }
        try sink.finish()
        return result
    }
}
