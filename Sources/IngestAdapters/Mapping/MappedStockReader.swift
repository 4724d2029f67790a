import IngestCore

/// The adapter a stock, registry or register mapping's layout calls for,
/// chosen once from the layout: delimited and fixed-width files by
/// `MappedCSVStockAdapter`, JSON by `MappedJSONStockAdapter`, XML by
/// `MappedXMLStockAdapter`. Each adapter holds its own layout's settings,
/// taken here, so none can be handed a layout it does not read (they once
/// stopped the process with `fatalError` if one was).
enum MappedStockReader {
    case delimited(MappedCSVStockAdapter)
    case json(MappedJSONStockAdapter)
    case xml(MappedXMLStockAdapter)

    init(_ mapping: StockFeedMapping) {
        switch mapping.layout {
        case .delimited(let delimiter, let quote, let hasHeader):
            self = .delimited(MappedCSVStockAdapter(mapping: mapping, settings: (delimiter, quote, hasHeader), fixedHeaderLines: nil))
        case .fixedWidth(let lines):
            // Whole lines, cut by the mapping's character ranges: no delimiter or quote to find.
            self = .delimited(MappedCSVStockAdapter(mapping: mapping, settings: (0xFE, 0xFF, false), fixedHeaderLines: lines))
        case .json(let pointer):
            self = .json(MappedJSONStockAdapter(mapping: mapping, recordPointer: pointer))
        case .xml(let element, let namespace):
            self = .xml(MappedXMLStockAdapter(mapping: mapping, record: (element, namespace)))
        }
    }

    var adapter: any ChainFeedAdapter {
        switch self {
        case .delimited(let adapter): adapter
        case .json(let adapter): adapter
        case .xml(let adapter): adapter
        }
    }

    func parse(_ file: FeedFile, into output: inout FeedOutput<StockOffer>, rows: ((Int, MappedRecordReader) -> Void)?) -> StockFeedHeader? {
        switch self {
        case .delimited(let adapter): adapter.parse(file, into: &output, rows: rows)
        case .json(let adapter): adapter.parse(file, into: &output, rows: rows)
        case .xml(let adapter): adapter.parse(file, into: &output, rows: rows)
        }
    }
}
