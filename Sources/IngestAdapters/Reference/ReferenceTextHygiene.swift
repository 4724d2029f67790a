import IngestCore

/// FEEDS.md §12's text hygiene for a reference row, the same for the
/// built-in CSV and XML adapters as for a mapping of the same kind: a code
/// or a name holding a line break or a control character rejects the row
/// `bad_text`; free text (an address, opening hours) is folded to one space
/// and the row kept, with a warning. A registry that kept a clear-screen
/// code in an address served it to every app.
enum ReferenceTextHygiene {
    /// Checks `values` field by field in `order` (the first fault names the
    /// reject); folds the `freeText` ones in place. False when the row is rejected.
    static func check<Record>(_ values: inout [String: String], order: [String], freeText: Set<String>, line: Int, key: String,
                              into output: inout FeedOutput<Record>) -> Bool {
        for field in order {
            guard let text = values[field], let problem = TextHygiene.problem(in: text, longest: longest(field, freeText: freeText)) else { continue }
            if freeText.contains(field) {
                values[field] = folded(text)
                output.warn(line: line, key: key, code: .foldedText, message: "\(field) had \(problem), folded to one space")
            } else {
                output.reject(line: line, key: key, reason: .badText, message: "\(field) has \(problem)", field: field)
                return false
            }
        }
        return true
    }

    /// Names are at most `TextHygiene.longestName` characters; codes and free text are not measured here.
    private static func longest(_ field: String, freeText: Set<String>) -> Int? {
        field == "name" ? TextHygiene.longestName : nil
    }

    /// Line breaks and control characters (and the runs of spaces around them) as one space.
    static func folded(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if TextHygiene.isControl(scalar) || scalar == " " || scalar == "\t" {
                pendingSpace = true
                continue
            }
            if pendingSpace, !scalars.isEmpty { scalars.append(" ") }
            pendingSpace = false
            scalars.append(scalar)
        }
        return String(scalars)
    }
}

extension WarningCode {
    /// Free text (an address, opening hours) with a line break or control character, folded to one space (FEEDS.md §12).
    public static let foldedText = WarningCode(rawValue: "folded_text")
}
