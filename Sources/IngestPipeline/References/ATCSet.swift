import IngestAdapters
import IngestCore
import IngestSnapshot

/// The ATC classification (FEEDS.md §8): the tree the apps browse, with how
/// many child groups and items each group has.
struct ATCSet: ReferenceSet {
    static let adapter = ATCAdapter()
    static let tables = [SnapshotTable(name: "atc", create: """
        CREATE TABLE atc(
            code TEXT PRIMARY KEY, name TEXT, level INTEGER, parent TEXT,
            child_count INTEGER, item_count INTEGER
        ) WITHOUT ROWID
        """, indexes: ["CREATE INDEX atc_by_parent ON atc(parent)"],
        about: TableAbout("ATC classification", "The WHO ATC tree with the number of items under each group.", columns: [
            ("code", "ATC code"), ("name", "Group name"), ("level", "Level, 1 (anatomical group) to 5 (substance)"),
            ("parent", "Parent group"), ("child_count", "Groups directly under it"),
            ("item_count", "Distinct items in this snapshot under it at any depth"),
        ], label: "name", sort: "code"))]

    struct Group {
        var code: String
        var name: String
        var level: Int
        var parent: String?
    }

    private(set) var groups: [Group] = []
    private var codes = Set<String>()

    var isEmpty: Bool { groups.isEmpty }

    mutating func add(_ records: [ATCGroup], from file: FeedFile, loaded: ReferenceData, report: inout RunReport) throws {
        for group in records where codes.insert(group.code).inserted {
            groups.append(Group(code: group.code, name: group.name, level: group.level, parent: group.parent))
        }
    }

    mutating func keep(from previous: PreviousSnapshot) throws -> Bool {
        let statement = try previous.database.prepare("SELECT code, name, level, parent FROM atc ORDER BY code")
        while try statement.step() {
            groups.append(Group(code: statement.string(0) ?? "", name: statement.string(1) ?? "", level: Int(statement.int64(2)),
                                parent: statement.string(3)))
        }
        return !groups.isEmpty
    }

    /// Groups with their `child_count`, counted here from the rows (a
    /// subquery on `parent` before its index exists scanned the table once
    /// per group: 7,000 groups took half a minute); then `item_count`:
    /// distinct items whose ATC code lies under the group at any depth (a
    /// prefix match on the items_by_atc index, one range per group; ATC codes
    /// are upper-case letters and digits, all sorting before `~`).
    func write(to writer: SnapshotWriter) throws {
        var children: [String: Int64] = [:]
        for group in groups { if let parent = group.parent { children[parent, default: 0] += 1 } }
        let insert = try writer.database.cachedStatement(
            "INSERT INTO atc(code, name, level, parent, child_count, item_count) VALUES (?, ?, ?, ?, ?, 0)")
        for group in groups {
            try insert.run(.text(group.code), .text(group.name), .int(Int64(group.level)), .text(group.parent),
                           .int(children[group.code, default: 0]))
        }
        try writer.database.execute("CREATE INDEX IF NOT EXISTS items_by_atc ON items(atc)")
        try writer.database.execute("""
            UPDATE atc SET item_count = (SELECT count(*) FROM items WHERE items.atc >= atc.code AND items.atc < atc.code || '~')
            """)
    }
}
