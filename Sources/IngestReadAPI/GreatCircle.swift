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

    func metres(to other: GeoPoint) -> Double {
        let radians = Double.pi / 180
        let dLatitude = (other.latitude - latitude) * radians
        let dLongitude = (other.longitude - longitude) * radians
        let a = sin(dLatitude / 2) * sin(dLatitude / 2)
            + cos(latitude * radians) * cos(other.latitude * radians) * sin(dLongitude / 2) * sin(dLongitude / 2)
        return 2 * Self.earthRadiusMetres * asin(min(1, a.squareRoot()))
    }
}
