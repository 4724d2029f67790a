import Foundation
import IngestCore
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
    private let buildsInProgress: Gauge
    private let buildSeconds: DurationHistogram

    /// Latency buckets around the 10 ms target, up to a changeset's seconds.
    static let buckets: [Duration] = [.microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
                                      .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .seconds(1),
                                      .seconds(5), .seconds(15)]

    /// `ingest_serve_<name>_<unit>`, as swift-prometheus names a metric from its parts.
    private static func named(_ name: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "ingest_serve", metricName: name, unitName: unit, helpText: help)
    }

    // Computed: swift-prometheus's descriptor is not Sendable, so it cannot be a stored static.
    private static var requests: MetricNameDescriptor { named("requests", "total", "Requests answered, by query and status") }
    private static var requestSeconds: MetricNameDescriptor { named("request", "seconds", "Time from a request's head to its answer, by query") }

    init() {
        versionAge = registry.makeGauge(descriptor: Self.named("snapshot_age", "seconds", "Seconds since the served snapshot was published (meta.created_at)"))
        builds = registry.makeCounter(descriptor: Self.named("changeset_builds", "total", "Changesets made since the server started"))
        buildsInProgress = registry.makeGauge(descriptor: Self.named("changeset_builds_in_progress", "",
                                                                     "Changesets being made now, on their own threads"))
        buildSeconds = registry.makeDurationHistogram(descriptor: Self.named("changeset_build", "seconds", "How long each changeset took to make"),
                                                      buckets: Self.buckets)
    }

    /// One answered request: `query` is the `q` of `/` (`p`, `i`, …), else the path.
    func record(query: String, status: Int, duration: Duration) {
        registry.makeCounter(descriptor: Self.requests, labels: [("query", query), ("status", String(status))]).increment()
        registry.makeDurationHistogram(descriptor: Self.requestSeconds, labels: [("query", query)], buckets: Self.buckets).record(duration)
    }

    func changesetStarted() {
        buildsInProgress.increment()
    }

    func changesetBuilt(in duration: Duration) {
        buildsInProgress.decrement()
        builds.increment()
        buildSeconds.record(duration)
    }

    /// The text of `/metrics`, with the version's age as of now.
    func exposition(serving snapshot: OpenSnapshot?, now: Date = Date()) -> [UInt8] {
        if let snapshot, let published = MachineTime.date(iso8601: snapshot.createdAt) {
            versionAge.set(now.timeIntervalSince(published))
        }
        return registry.emitToBuffer()
    }
}
