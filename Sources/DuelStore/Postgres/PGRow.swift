/// One result row, values in libpq's text format, with typed accessors by column name.
public struct PGRow: Sendable {
    let columns: [String: Int]
    let values: [String?]

    /// The raw text of `column`, nil for SQL NULL.
    public subscript(column: String) -> String? {
        guard let index = columns[column] else { return nil }
        return values[index]
    }

    public func string(_ column: String) throws(PGError) -> String {
        guard let index = columns[column] else {
            throw .client("no column \(column) (the row has \(columns.keys.sorted().joined(separator: ", ")))")
        }
        guard let value = values[index] else { throw .client("column \(column) is NULL") }
        return value
    }

    public func optionalString(_ column: String) -> String? {
        self[column]
    }

    public func int(_ column: String) throws(PGError) -> Int {
        let text = try string(column)
        guard let value = Int(text) else { throw .client("column \(column) is not an integer: \(text)") }
        return value
    }

    public func int64(_ column: String) throws(PGError) -> Int64 {
        let text = try string(column)
        guard let value = Int64(text) else { throw .client("column \(column) is not an integer: \(text)") }
        return value
    }

    public func optionalInt64(_ column: String) throws(PGError) -> Int64? {
        guard self[column] != nil else { return nil }
        return try int64(column)
    }

    public func double(_ column: String) throws(PGError) -> Double {
        let text = try string(column)
        guard let value = Double(text) else { throw .client("column \(column) is not a number: \(text)") }
        return value
    }

    public func bool(_ column: String) throws(PGError) -> Bool {
        let text = try string(column)
        switch text {
        case "t", "true": return true
        case "f", "false": return false
        default: throw .client("column \(column) is not a boolean: \(text)")
        }
    }

    /// A one-dimensional `text[]` in Postgres's array output syntax.
    public func textArray(_ column: String) throws(PGError) -> [String] {
        let text = try string(column)
        guard let parsed = PGRow.parseArray(text) else { throw .client("column \(column) is not an array: \(text)") }
        return parsed
    }

    /// Parses `{a,"b c","d\"e"}`; NULL elements are not expected here.
    static func parseArray(_ text: String) -> [String]? {
        let characters = Array(text)
        guard characters.first == "{", characters.last == "}" else { return nil }
        var items: [String] = []
        var index = 1
        guard characters.count > 2 else { return [] }
        while index < characters.count - 1 {
            var item = ""
            if characters[index] == "\"" {
                index += 1
                while index < characters.count - 1, characters[index] != "\"" {
                    if characters[index] == "\\" { index += 1 }
                    item.append(characters[index])
                    index += 1
                }
                index += 1
            } else {
                while index < characters.count - 1, characters[index] != "," {
                    item.append(characters[index])
                    index += 1
                }
            }
            items.append(item)
            if index < characters.count - 1, characters[index] == "," { index += 1 }
        }
        return items
    }
}
