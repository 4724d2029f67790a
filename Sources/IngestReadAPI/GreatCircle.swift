import Foundation

/// A point on the earth, and the great-circle distance READ_API.md asks
/// for: a sphere of radius 6371 km, by the haversine formula (well
/// conditioned for the short distances between a client and a pharmacy).
public struct GeoPoint: Sendable, Equatable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    static let earthRadiusMetres = 6_371_000.0

    func metres(to other: GeoPoint) -> Double { MeasuredPoint(self).metres(to: MeasuredPoint(other)) }
}

/// A position with its latitude's cosine worked out once: the haversine
/// needs it at both ends, and a pharmacy's never changes, so
/// `PharmacyDirectory` keeps one per pharmacy and a request one for its own
/// position. Two of the four trigonometric calls per distance go (they were
/// 7 % of `?q=ip`'s CPU under wrk), and the result is the same to the bit.
struct MeasuredPoint: Sendable {
    let point: GeoPoint
    let cosLatitude: Double

    init(_ point: GeoPoint) {
        self.point = point
        cosLatitude = cos(point.latitude * Self.radians)
    }

    private static let radians = Double.pi / 180

    func metres(to other: MeasuredPoint) -> Double {
        let dLatitude = (other.point.latitude - point.latitude) * Self.radians
        let dLongitude = (other.point.longitude - point.longitude) * Self.radians
        let a = sin(dLatitude / 2) * sin(dLatitude / 2) + cosLatitude * other.cosLatitude * sin(dLongitude / 2) * sin(dLongitude / 2)
        return 2 * GeoPoint.earthRadiusMetres * asin(min(1, a.squareRoot()))
    }
}
