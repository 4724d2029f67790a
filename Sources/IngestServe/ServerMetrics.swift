import Foundation
import IngestReadAPI
import Prometheus

/// What `/metrics` shows, in Prometheus's text format (swift-prometheus):
/// requests by query and status, their latency, the served version's age
/// and the changeset builds. A registry of the server's own, not the
/// process-wide `MetricsSystem`: nothing global to bootstrap, and a test's
/// server counts only its own requests.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let versionAge: Gauge
    private let builds: Counter
    private let buildSeconds: DurationHistogram

    /// Latency buckets around the 10 ms target, up to a changeset's seconds.
    static let buckets: [Duration] = [.microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
                                      .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .seconds(1),
                                      .seconds(5), .seconds(15)]

    init() {
        versionAge = registry.makeGauge(name: "ingest_serve_snapshot_age_seconds",
                                        help: "Seconds since the served snapshot was published (meta.created_at)")
        builds = registry.makeCounter(name: "ingest_serve_changeset_builds_total", help: "Changesets made since the server started")
        buildSeconds = registry.makeDurationHistogram(name: "ingest_serve_changeset_build_seconds", buckets: Self.buckets,
                                                      help: "How long each changeset took to make")
    }

    /// One answered request: `query` is the `q` of `/` (`p`, `i`, …), else the path.
    func record(query: String, status: Int, duration: Duration) {
        registry.makeCounter(name: "ingest_serve_requests_total", labels: [("query", query), ("status", String(status))],
                             help: "Requests answered, by query and status").increment()
        registry.makeDurationHistogram(name: "ingest_serve_request_seconds", labels: [("query", query)], buckets: Self.buckets,
                                       help: "Time from a request's head to its answer, by query").record(duration)
    }

    func changesetBuilt(in duration: Duration) {
        builds.increment()
        buildSeconds.record(duration)
    }

    /// The text of `/metrics`, with the version's age as of now.
    func exposition(serving snapshot: OpenSnapshot?, now: Date = Date()) -> [UInt8] {
        if let snapshot, let published = ISO8601DateFormatter().date(from: snapshot.createdAt) {
            versionAge.set(now.timeIntervalSince(published))
        }
        return registry.emitToBuffer()
    }
}
