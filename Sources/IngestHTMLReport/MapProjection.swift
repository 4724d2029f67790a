import Foundation
import IngestPipeline

/// Places pharmacies on the report's SVG map: an equirectangular
/// projection of their bounding box, its longitude scaled by the cosine of
/// the middle latitude so that a country keeps its shape. No tiles and no
/// network: the page must open anywhere, so the map is the dots alone.
struct MapProjection {
    struct Point {
        var x: String
        var y: String
        var id: String
        var name: String
        var stale: Bool
    }

    let width: Double
    let height: Double
    let padding = 12.0

    init(width: Double = 640, height: Double = 420) {
        self.width = width
        self.height = height
    }

    /// The points in drawing order, stale ones last so that they sit on top.
    func project(_ positions: [PharmacyPosition]) -> [Point] {
        guard !positions.isEmpty else { return [] }
        let latitudes = positions.map(\.latitude), longitudes = positions.map(\.longitude)
        let minLat = latitudes.min()!, maxLat = latitudes.max()!
        let minLon = longitudes.min()!, maxLon = longitudes.max()!
        let shrink = cos((minLat + maxLat) / 2 * .pi / 180)
        // A single place (or a line of them) still gets a box to sit in.
        let spanX = max((maxLon - minLon) * shrink, 1e-6), spanY = max(maxLat - minLat, 1e-6)
        let scale = min((width - 2 * padding) / spanX, (height - 2 * padding) / spanY)
        let offsetX = (width - spanX * scale) / 2, offsetY = (height - spanY * scale) / 2
        let ordered = positions.filter { !$0.stale } + positions.filter(\.stale)
        return ordered.map { position in
            let x = offsetX + (position.longitude - minLon) * shrink * scale
            let y = offsetY + (maxLat - position.latitude) * scale
            return Point(x: String(format: "%.1f", x), y: String(format: "%.1f", y), id: position.id,
                         name: position.name ?? position.id, stale: position.stale)
        }
    }
}
