import IngestAdapters
import IngestCore
import IngestSnapshot

/// A pharmacy already written that turns out to be the newer copy of
/// another's stock gives way: its feed is rejected whole, and since its
/// offers were handed to the writer and not kept, the feed is read again
/// (rare) so each record is a reject with its own line. Removing its
/// offers and price history, and putting yesterday's in their place, is the
/// loader's.
enum DuplicateEviction {
    /// The copy's records as rejects with the check's reason, straight from
    /// the adapter (or the chain part's spill) to a journal spilling under
    /// `spillPrefix`. Its own rejects and warnings were counted the first time.
    static func rejects(of eviction: FeedJudge.Eviction, spillPrefix: String?) throws -> Journal<Reject> {
        let candidate = eviction.candidate
        let file = candidate.file.name
        let log = PharmacyFeedParser.TaskLog(PharmacyFeedParser.Result(pharmacyID: eviction.pharmacyID, spillPrefix: spillPrefix))
        var output = FeedOutput<StockOffer>(file: file, sink: FeedSink(
            accept: { log.reject(WholeFeedRejection.reject($0, file: file, eviction.problem)) },
            reject: { _ in }, warn: { _ in }))
        if let part = candidate.part { _ = try part.replay(into: &output) } else { _ = candidate.adapter.parse(candidate.file, into: &output) }
        if let failure = log.failure {
            log.rejects.discard()
            throw failure
        }
        return log.rejects
    }
}
