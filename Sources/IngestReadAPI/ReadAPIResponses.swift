/// The five answers' JSON shapes, field for field as READ_API.md fixes them
/// (the apps in use read these names), each written in the document's key
/// order (`JSONWriter`).

/// `?q=p`
struct PharmacyList {
    struct Region {
        var n: String
        var p: [Pharmacy]
    }

    /// A pharmacy's fields come from `directory` (`listFields`); `di` is
    /// written from `metres` when the client gave a position.
    typealias Pharmacy = (pharmacy: PharmacyDirectory.Index, metres: Double?)

    var directory: PharmacyDirectory
    var showsDistance: Bool
    /// When `on` and `oh` are about (Version 3).
    var moment: RequestMoment
    var regions: [Region]
    var paging: Paging
}

extension PharmacyList: JSONWritable {
    /// Every pharmacy's rendered fields, more than any answer writes of them.
    var estimatedBytes: Int { directory.rendered.count + 1024 }

    func write(to writer: inout JSONWriter) {
        let openNow = directory.openStateRow(at: moment)
        writer.object { writer in
            writer.key("regions")
            writer.array { writer in
                for region in regions {
                    writer.object { writer in
                        writer.field("n", region.n)
                        writer.key("p")
                        writer.array { writer in
                            directory.rendered.withUnsafeBufferPointer { rendered in
                                for pharmacy in region.p {
                                    writer.object { writer in
                                        writer.fields(UnsafeBufferPointer(rebasing: rendered[directory.listFields[pharmacy.pharmacy]]))
                                        writer.openingFields(rendered, directory.openNow(pharmacy.pharmacy, in: openNow),
                                                             directory.hoursField(pharmacy.pharmacy, at: moment))
                                        if showsDistance { writer.distance(pharmacy.metres) }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            writer.paging(paging)
        }
    }
}

/// `?q=i`
struct ItemSearch {
    struct Item {
        var a, n, p: String
        /// Version 3: `1` prescription only, `0` not, `` unknown.
        var rx: String
    }

    var items: [Item]
    var paging: Paging
}

extension ItemSearch: JSONWritable {
    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.items(items.map { ($0.a, $0.n, $0.p) }) { writer, index in writer.field("rx", items[index].rx) }
            writer.paging(paging)
        }
    }
}

/// `?q=ip`
struct ItemPharmacies {
    struct Group {
        var n: String
        var p: [Offer]
    }

    /// `i`, `pi`, `n`, `p` and `q` are written out in `offers`; `di` is
    /// written from the number.
    struct Offer {
        /// Its index in `offers`.
        var offer: Int
        var metres: Double?
    }

    var offers: ItemOffers
    /// For each offer's `d`, `s`, `on` and `oh` (Version 3), written per request after the cached fields.
    var directory: PharmacyDirectory
    var moment: RequestMoment
    var showsDistance: Bool
    // swiftlint:disable:next identifier_name
    var item_pharmacies: [Group]
    var paging: Paging
}

extension ItemPharmacies: JSONWritable {
    /// The offers' rendered fields and, per offer, its pharmacy's age, hours and distance.
    var estimatedBytes: Int { offers.rendered.count + offers.count * 96 + 1024 }

    func write(to writer: inout JSONWriter) {
        let openNow = directory.openStateRow(at: moment)
        writer.object { writer in
            writer.key("item_pharmacies")
            writer.array { writer in
                for group in item_pharmacies {
                    writer.object { writer in
                        writer.field("n", group.n)
                        writer.key("p")
                        writer.array { writer in
                            offers.rendered.withUnsafeBufferPointer { rendered in
                                directory.rendered.withUnsafeBufferPointer { pharmacyFields in
                                    for offer in group.p {
                                        let pharmacy = offers.pharmacies[offer.offer]
                                        writer.object { writer in
                                            writer.fields(UnsafeBufferPointer(rebasing: rendered[offers.fields[offer.offer]]))
                                            writer.fields(UnsafeBufferPointer(rebasing: pharmacyFields[directory.ageFields[pharmacy]]))
                                            writer.openingFields(pharmacyFields, directory.openNow(pharmacy, in: openNow), directory.hoursField(pharmacy, at: moment))
                                            if showsDistance { writer.distance(offer.metres) }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            writer.paging(paging)
        }
    }
}

/// `?q=id`
struct ItemDetails {
    struct Details {
        var itemId, itemName, producerName, pharmacyName: String
        var price, priceLimit, priceDisc50, priceDisc75, priceDisc90, priceDisc100: String
        var diagnose50, diagnose75, diagnose100: String
        var info50, info75, info100: String
        var atc, actSubst: String
        var diagExpl: [Explanation]
        var infoUrl, imageUrl: String
        /// Version 2: what the medicine register says of the package ("" when it does not know it).
        var form = "", strength = "", packSize = "", rx = "", spcUrl = ""
        /// Version 3: every code and range the list gives the package, with its ICD-10 name.
        var diagnoses: [Diagnosis] = []
    }

    struct Diagnosis {
        var code, name: String
    }

    struct Explanation {
        var name, text: String
    }

    // swiftlint:disable:next identifier_name
    var item_details: [Details]
}

extension ItemDetails: JSONWritable {
    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.key("item_details")
            writer.array { writer in
                for details in item_details {
                    writer.object { writer in
                        let d = details
                        for (key, value) in [("itemId", d.itemId), ("itemName", d.itemName), ("producerName", d.producerName),
                                             ("pharmacyName", d.pharmacyName), ("price", d.price), ("priceLimit", d.priceLimit),
                                             ("priceDisc50", d.priceDisc50), ("priceDisc75", d.priceDisc75), ("priceDisc90", d.priceDisc90),
                                             ("priceDisc100", d.priceDisc100), ("diagnose50", d.diagnose50), ("diagnose75", d.diagnose75),
                                             ("diagnose100", d.diagnose100), ("info50", d.info50), ("info75", d.info75), ("info100", d.info100),
                                             ("atc", d.atc), ("actSubst", d.actSubst)] {
                            writer.field(key, value)
                        }
                        writer.key("diagExpl")
                        writer.array { writer in
                            for explanation in d.diagExpl {
                                writer.object { writer in
                                    writer.field("name", explanation.name)
                                    writer.field("text", explanation.text)
                                }
                            }
                        }
                        writer.field("infoUrl", d.infoUrl)
                        writer.field("imageUrl", d.imageUrl)
                        for (key, value) in [("form", d.form), ("strength", d.strength), ("packSize", d.packSize), ("rx", d.rx), ("spcUrl", d.spcUrl)] {
                            writer.field(key, value)
                        }
                        writer.key("diagnoses")
                        writer.array { writer in
                            for diagnosis in d.diagnoses {
                                writer.object { writer in
                                    writer.field("c", diagnosis.code)
                                    writer.field("n", diagnosis.name)
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// `?q=a`
struct ATCTree {
    struct Group {
        /// `cc` (Version 3): how many groups are directly under it, so an app knows whether to drill down.
        var a, n, c, cc: String
    }

    var atc: [Group]
}

extension ATCTree: JSONWritable {
    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.key("atc")
            writer.array { writer in
                for group in atc {
                    writer.object { writer in
                        writer.field("a", group.a)
                        writer.field("n", group.n)
                        writer.field("c", group.c)
                        writer.field("cc", group.cc)
                    }
                }
            }
        }
    }
}

/// Any 400: `{"error": "<reason>"}`.
struct ErrorBody: JSONWritable {
    var error: String

    func write(to writer: inout JSONWriter) {
        writer.object { $0.field("error", error) }
    }
}

extension JSONWriter {
    /// `di`: the distance from the client, "" for a pharmacy without coordinates.
    mutating func distance(_ metres: Double?) {
        field("di", unescaped: { bytes in
            if let metres { ReadAPIFormat.appendDistance(metres: metres, to: &bytes) }
        })
    }
}

/// `?q=h` (Version 2): each change of one offer's shelf price, newest first;
/// `d` the export's date in the service's time zone.
struct PriceHistoryAnswer {
    struct Change {
        var d, p: String
    }

    var price_history: [Change]
}

extension PriceHistoryAnswer: JSONWritable {
    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.key("price_history")
            writer.array { writer in
                for change in price_history {
                    writer.object { writer in
                        writer.field("d", change.d)
                        writer.field("p", change.p)
                    }
                }
            }
        }
    }
}

/// `GET /health`.
struct Health: JSONWritable {
    var version: String
    var schema: Int
    var published: String

    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.field("status", "ok")
            writer.field("version", version)
            writer.field("schema", schema)
            writer.field("published", published)
        }
    }
}

extension JSONWriter {
    /// `"on"` and `"oh"` of a pharmacy at a moment (READ_API.md, Version 3):
    /// `on` as `PharmacyDirectory.openNow` gives it, `oh` rendered in the directory's `rendered`.
    mutating func openingFields(_ rendered: UnsafeBufferPointer<UInt8>, _ on: StaticString, _ hours: Range<Int>) {
        field("on", unescaped: { $0.append(UnsafeBufferPointer(start: on.utf8Start, count: on.utf8CodeUnitCount)) })
        fields(UnsafeBufferPointer(rebasing: rendered[hours]))
    }

    /// `"d"` and `"s"` of an offer: its pharmacy's export date and whether it is carried over (Version 3).
    mutating func ageFields(_ directory: borrowing PharmacyDirectory, _ pharmacy: PharmacyDirectory.Index) {
        let range = directory.ageFields[pharmacy]
        directory.rendered.withUnsafeBufferPointer { rendered in fields(UnsafeBufferPointer(rebasing: rendered[range])) }
    }
}

/// `?q=dx` (Version 3): `{"c": code, "n": ICD-10 name, "items": [{"a", "n", "p", "t": ["75", "90"]}], "total", "next"}`.
struct DiagnosisItems: JSONWritable {
    struct Item {
        var a, n, p: String
        var t: [String]
    }

    var c, n: String
    var items: [Item]
    var paging: Paging

    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.field("c", c)
            writer.field("n", n)
            writer.items(items.map { ($0.a, $0.n, $0.p) }) { writer, index in
                writer.key("t")
                writer.array { writer in for tier in items[index].t { writer.string(tier) } }
            }
            writer.paging(paging)
        }
    }
}

extension JSONWriter {
    /// `"key": [{…}, …]`: one object per element, its fields written by `body`.
    mutating func objects<Elements: Sequence>(_ key: String, _ elements: Elements, _ body: (inout JSONWriter, Elements.Element) -> Void) {
        self.key(key)
        array { writer in
            for element in elements { writer.object { body(&$0, element) } }
        }
    }

    /// `"items": [{"a", "n", "p", …}]`, the list of `q=i` and `q=dx`; `more` writes each entry's own fields after them.
    mutating func items(_ items: [(a: String, n: String, p: String)], more: (inout JSONWriter, Int) -> Void) {
        key("items")
        array { writer in
            for (index, item) in items.enumerated() {
                writer.object { writer in
                    writer.field("a", item.a)
                    writer.field("n", item.n)
                    writer.field("p", item.p)
                    more(&writer, index)
                }
            }
        }
    }
}

/// `?q=g` (Version 3): `{"gs1": [datasheet]}`, `[]` for a GTIN no datasheet gives. Every value a string, as everywhere.
struct DatasheetAnswer: JSONWritable {
    var gs1: [SnapshotReader.Datasheet]

    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.objects("gs1", gs1) { writer, sheet in
                for (key, value) in [("gtin", sheet.gtin), ("level", sheet.level), ("brand", sheet.brand), ("description", sheet.description),
                                     ("netContent", sheet.netContent), ("netContentUnit", sheet.netContentUnit), ("heightMm", sheet.height),
                                     ("widthMm", sheet.width), ("depthMm", sheet.depth), ("grossWeightG", sheet.grossWeight),
                                     ("imageUrl", sheet.image), ("gln", sheet.gln)] {
                    writer.field(key, value)
                }
                writer.objects("descriptions", sheet.descriptions) { $0.field("lang", $1.lang); $0.field("text", $1.text) }
                writer.objects("children", sheet.children) { $0.field("gtin", $1.gtin); $0.field("quantity", $1.quantity) }
                writer.objects("inspections", sheet.inspections) { writer, inspection in
                    writer.field("attribute", inspection.attribute)
                    writer.field("result", inspection.result)
                    writer.field("date", inspection.date)
                }
            }
        }
    }
}
