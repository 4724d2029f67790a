/// The five answers' JSON shapes, field for field as READ_API.md fixes them
/// (the apps in use read these names), each written in the document's key
/// order (`JSONWriter`).

/// `?q=p`
struct PharmacyList {
    struct Region {
        var n: String
        var p: [Pharmacy]
    }

    struct Pharmacy {
        var i, n, d, p, a, c, o, l: String
        var di: String?
    }

    var regions: [Region]
}

extension PharmacyList: JSONWritable {
    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.key("regions")
            writer.array { writer in
                for region in regions {
                    writer.object { writer in
                        writer.field("n", region.n)
                        writer.key("p")
                        writer.array { writer in
                            for pharmacy in region.p {
                                writer.object { writer in
                                    writer.field("i", pharmacy.i)
                                    writer.field("n", pharmacy.n)
                                    writer.field("d", pharmacy.d)
                                    writer.field("p", pharmacy.p)
                                    writer.field("a", pharmacy.a)
                                    writer.field("c", pharmacy.c)
                                    writer.field("o", pharmacy.o)
                                    writer.field("l", pharmacy.l)
                                    if let di = pharmacy.di { writer.field("di", di) }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// `?q=i`
struct ItemSearch {
    struct Item {
        var a, n, p: String
    }

    var items: [Item]
}

extension ItemSearch: JSONWritable {
    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.key("items")
            writer.array { writer in
                for item in items {
                    writer.object { writer in
                        writer.field("a", item.a)
                        writer.field("n", item.n)
                        writer.field("p", item.p)
                    }
                }
            }
        }
    }
}

/// `?q=ip`
struct ItemPharmacies {
    struct Group {
        var n: String
        var p: [Offer]
    }

    struct Offer {
        var i, pi, n, p: String
        var di: String?
    }

    // swiftlint:disable:next identifier_name
    var item_pharmacies: [Group]
}

extension ItemPharmacies: JSONWritable {
    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.key("item_pharmacies")
            writer.array { writer in
                for group in item_pharmacies {
                    writer.object { writer in
                        writer.field("n", group.n)
                        writer.key("p")
                        writer.array { writer in
                            for offer in group.p {
                                writer.object { writer in
                                    writer.field("i", offer.i)
                                    writer.field("pi", offer.pi)
                                    writer.field("n", offer.n)
                                    writer.field("p", offer.p)
                                    if let di = offer.di { writer.field("di", di) }
                                }
                            }
                        }
                    }
                }
            }
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
                    }
                }
            }
        }
    }
}

/// `?q=a`
struct ATCTree {
    struct Group {
        var a, n, c: String
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
