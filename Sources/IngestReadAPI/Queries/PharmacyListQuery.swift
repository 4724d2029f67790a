import Foundation
import IngestCore

/// `q=p`: the pharmacies, by region, nearest first from a position (or by
/// name), or the nearest alone; open now or at a moment (Version 3).
public struct PharmacyListQuery: ReadAPIQuery {
    public static let name = "p"
    public static let documentation = QueryDocumentation(
        summary: "pharmacy list (optional position, onlyNearest, openNow, at)",
        parameters: ["latitude", "longitude", "onlyNearest", "limit", "offset", "openNow", "at"], answerSchema: "PharmacyList")

    public var near: GeoPoint?
    public var onlyNearest: Bool
    public var page: ResultPage
    public var when: ReadQuery.When

    public init(near: GeoPoint?, onlyNearest: Bool, page: ResultPage = .first, when: ReadQuery.When = .any) {
        self.near = near
        self.onlyNearest = onlyNearest
        self.page = page
        self.when = when
    }

    public init(_ parameters: QueryParameters) throws(ReadQuery.Invalid) {
        let near = try parameters.position()
        self.init(near: near, onlyNearest: try parameters.onlyNearest(near: near), page: try parameters.page(), when: try parameters.when())
    }

    public var saysWhatIsOpen: Bool { when.at == nil }
    /// The pharmacies are read when the snapshot opens (`PharmacyDirectory`).
    public func answerFromMemory(of snapshot: OpenSnapshot, context: ReadContext) throws -> Data? {
        try answer(from: snapshot, context: context)
    }

    public func answer(from snapshot: OpenSnapshot, context: ReadContext) throws -> Data {
        ReadAPI.encode(ReadAPI.pharmacyList(snapshot, near: near, onlyNearest: onlyNearest, page: page, when: when, at: context.moment(when.at)))
    }
}

extension ReadAPI {
    static func pharmacyList(_ snapshot: OpenSnapshot, near: GeoPoint?, onlyNearest: Bool, page: ResultPage = .first,
                             when: ReadQuery.When = .any, at moment: RequestMoment) -> PharmacyList {
        let directory = snapshot.pharmacies
        let from = near.map(MeasuredPoint.init)
        let filtering = when.openNow
        let openNow = directory.openStateRow(at: moment)
        let rows = (0..<directory.count).filter { !filtering || directory.admits($0, when, at: moment, in: openNow, offers: false) }
            .map { (pharmacy: $0, metres: directory.metres(from: from, to: $0)) }
        let (groups, paging) = grouped(rows, in: directory, onlyNearest: onlyNearest, page: page)
        return PharmacyList(directory: directory, showsDistance: near != nil, moment: moment, regions: groups.map { group in
            .init(n: group.name, p: group.rows.map { rows[$0] })
        }, paging: paging)
    }

}
