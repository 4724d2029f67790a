import IngestCore

/// Sends each row of a chain file to its pharmacy's part, creating parts as
/// new pharmacy ids appear, in whatever order the rows come.
public final class ChainRouter {
    public let file: String
    /// Spill files are named `<spillPrefix><n>`: the caller's staging area,
    /// so whatever a killed run leaves is found and removed by the next.
    public let spillPrefix: String
    private(set) var parts: [String: ChainPart] = [:]
    /// A spill write that failed (a full disk): the run cannot go on.
    public private(set) var spillFailure: POSIXFailure?

    public init(file: String, spillPrefix: String) {
        self.file = file
        self.spillPrefix = spillPrefix
    }

    /// The part of `pharmacyID`, new at its first row.
    func part(_ pharmacyID: String) -> ChainPart {
        if let part = parts[pharmacyID] { return part }
        let part = ChainPart(pharmacyID: pharmacyID, file: file, spillPath: "\(spillPrefix)\(parts.count)")
        parts[pharmacyID] = part
        return part
    }

    func accept(_ offer: StockOffer, into part: ChainPart) {
        guard spillFailure == nil else { return }
        do { try part.accept(offer) } catch { spillFailure = error }
    }

    /// After the last row: every spill flushed, the file's failure given to
    /// every part; the parts in pharmacy id byte order.
    public func finish(fileFailure: FeedFailure?) -> [ChainPart] {
        let sorted = parts.values.sorted { precedesInByteOrder($0.pharmacyID, $1.pharmacyID) }
        for part in sorted {
            part.fileFailure = fileFailure
            if spillFailure == nil {
                do { try part.finishSplit() } catch { spillFailure = error }
            }
        }
        return sorted
    }
}
