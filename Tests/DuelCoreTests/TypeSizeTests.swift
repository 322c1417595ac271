import Foundation
import Testing

/// Issue 22's size target, held for every source file: no file over 400 lines, and no struct,
/// class or actor whose body declares more than 12 stored properties (`let`/`var` that are not
/// `static` and have no getter body; `@Option`/`@Flag`/`@OptionGroup` properties of commands
/// count too). A type past it is regrouped into cohesive nested value types.
@Suite struct TypeSizeTests {
    static let maxLines = 400
    static let maxStoredProperties = 12
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    static func swiftFiles() throws -> [URL] {
        let walker = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        return walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
            .sorted { $0.path < $1.path }
    }

    @Test func noFileIsOverTheLineLimit() throws {
        let files = try Self.swiftFiles()
        #expect(files.count > 50, "found only \(files.count) files under \(Self.sources.path)")
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count - (text.hasSuffix("\n") ? 1 : 0)
            #expect(lines <= Self.maxLines, "\(file.lastPathComponent): \(lines) lines (at most \(Self.maxLines))")
        }
    }

    @Test func noTypeHasMoreThanTwelveStoredProperties() throws {
        var types = 0
        for file in try Self.swiftFiles() {
            let counts = StoredPropertyCounter.count(try String(contentsOf: file, encoding: .utf8))
            types += counts.count
            for type in counts where type.stored.count > Self.maxStoredProperties {
                Issue.record("""
                    \(file.lastPathComponent): \(type.name) has \(type.stored.count) stored properties \
                    (at most \(Self.maxStoredProperties)): \(type.stored.joined(separator: ", "))
                    """)
            }
        }
        #expect(types > 100, "found only \(types) types")
    }

    /// The parser itself, on the cases it must tell apart.
    @Test func theCounterTellsStoredFromComputed() {
        let source = #"""
            struct Command: ParsableCommand {
                static let configuration = CommandConfiguration(abstract: "a { b")
                @Option(name: .customLong("x-y"), help: "Braces } and \"quotes\" in help.") var a: Int?
                @Option(
                    name: .customLong("b"),
                    help: "Over lines (default 3).")
                var b = 3
                @Flag var c = false
                @OptionGroup var d: Group
                let e: Int, f: String
                var g: Int { 1 }
                var h: Int {
                    get { 1 }
                    set {}
                }
                var i = 0 {
                    didSet { print(i) }
                }
                lazy var j = { [1, 2] }()
                private(set) weak var k: AnyObject?
                nonisolated(unsafe) var l = 0
                /* var m = 0 */ // var n = 0
                let text = """
                    var o = 0
                    """
                func run() { let p = 1; var q = p }
                class var r: Int { 1 }
                enum Inner { case s; static var t = 0; var u: Int { 0 } }
                actor Worker { var v = 0 }
            }
            extension Command {
                var w: Int { 0 }
                struct Nested { let y: () -> Void; var z: (Int) -> Int = { $0 }; var zz: () -> Int { 0 } }
            }
            protocol P { var x: Int { get } }
            """#
        let counts = StoredPropertyCounter.count(source)
        #expect(counts.map(\.name) == ["Command", "Command.Inner", "Command.Worker", "Command.Nested"])
        #expect(counts.first?.stored == ["a", "b", "c", "d", "e", "f", "i", "j", "k", "l", "text"])
        #expect(counts.dropFirst().first?.stored == [])
        #expect(counts.dropFirst(2).first?.stored == ["v"])
        #expect(counts.last?.stored == ["y", "z"])
    }
}

/// A line-based reading of Swift source, good enough for the sources of this package: comments
/// and string literals blanked, braces tracked, and at each type's own level the `let`/`var`
/// declarations that store a value.
enum StoredPropertyCounter {
    struct TypeCount: Equatable {
        var name: String
        var stored: [String]
    }

    private enum Scope {
        /// A struct, class, actor or enum: its index in the result.
        case type(index: Int)
        /// An extension or protocol: its name, for the types nested in it.
        case container(name: String)
        /// A function, closure, accessor or statement body.
        case other
    }

    static func count(_ source: String) -> [TypeCount] {
        let lines = blanked(source).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var types: [TypeCount] = []
        var scopes: [Scope] = []
        var pending: (name: String, isType: Bool)?
        var index = 0
        while index < lines.count {
            // One declaration may run over lines while its parentheses are open (an `@Option(...)`).
            var line = lines[index]
            index += 1
            while parenthesisDepth(line) > 0, index < lines.count {
                line += " " + lines[index]
                index += 1
            }
            let next = index < lines.count ? lines[index] : ""
            // Each segment of the line that starts it or follows `{`, `}` or `;` may declare.
            let characters = Array(line)
            var segmentStarts = true
            for (offset, character) in characters.enumerated() {
                if segmentStarts, character != " ", character != "\t" {
                    segmentStarts = false
                    let segment = strippingAttributes(String(characters[offset...]))
                    if case .type(let current)? = scopes.last, let names = storedProperties(segment, next: next) {
                        types[current].stored += names
                    }
                    if let declared = typeDeclaration(segment) {
                        let outer: String? = scopes.reversed().lazy.compactMap { scope -> String? in
                            switch scope {
                            case .type(let i): types[i].name
                            case .container(let name): name
                            case .other: nil
                            }
                        }.first
                        pending = ((outer.map { "\($0)." } ?? "") + declared.name, declared.isType)
                    }
                }
                switch character {
                case "{":
                    if let declared = pending {
                        if declared.isType {
                            types.append(TypeCount(name: declared.name, stored: []))
                            scopes.append(.type(index: types.count - 1))
                        } else {
                            scopes.append(.container(name: declared.name))
                        }
                        pending = nil
                    } else {
                        scopes.append(.other)
                    }
                    segmentStarts = true
                case "}":
                    _ = scopes.popLast()
                    segmentStarts = true
                case ";":
                    segmentStarts = true
                default:
                    break
                }
            }
        }
        return types
    }

    /// `source` with comments removed and the contents of string literals (plain, multi-line,
    /// raw, with interpolations) blanked; line breaks are kept.
    static func blanked(_ source: String) -> String {
        let characters = Array(source)
        var out: [Character] = []
        var i = 0
        func at(_ offset: Int) -> Character? { i + offset < characters.count ? characters[i + offset] : nil }
        while i < characters.count {
            let c = characters[i]
            if c == "/", at(1) == "/" {
                while i < characters.count, characters[i] != "\n" { i += 1 }
            } else if c == "/", at(1) == "*" {
                var depth = 0
                repeat {
                    if characters[i] == "/", at(1) == "*" { depth += 1; i += 2 }
                    else if characters[i] == "*", at(1) == "/" { depth -= 1; i += 2 }
                    else { if characters[i] == "\n" { out.append("\n") }; i += 1 }
                } while depth > 0 && i < characters.count
            } else if c == "#" || c == "\"" {
                // A string literal: #*"  or  #*""" ... closed by the same quotes and hashes.
                var hashes = 0
                while at(hashes) == "#" { hashes += 1 }
                guard at(hashes) == "\"" else { out.append(c); i += 1; continue }
                let multiLine = at(hashes + 1) == "\"" && at(hashes + 2) == "\""
                let quotes = multiLine ? 3 : 1
                i += hashes + quotes
                out.append("\"")
                var interpolation = 0
                while i < characters.count {
                    let d = characters[i]
                    if d == "\\" {
                        var h = 0
                        while h < hashes, at(1 + h) == "#" { h += 1 }
                        if h == hashes, at(1 + h) == "(" { interpolation += 1; i += 2 + h; continue }
                        i += hashes == 0 ? 2 : 1
                        continue
                    }
                    if interpolation > 0 {
                        if d == "(" { interpolation += 1 } else if d == ")" { interpolation -= 1 }
                        i += 1
                        continue
                    }
                    if d == "\"", (0..<quotes).allSatisfy({ at($0) == "\"" }), (0..<hashes).allSatisfy({ at(quotes + $0) == "#" }) {
                        i += quotes + hashes
                        break
                    }
                    if d == "\n" { out.append("\n") }
                    i += 1
                }
                out.append("\"")
            } else {
                out.append(c)
                i += 1
            }
        }
        return String(out)
    }

    static func parenthesisDepth(_ line: String) -> Int {
        line.reduce(0) { $0 + ($1 == "(" ? 1 : $1 == ")" ? -1 : 0) }
    }

    /// The line without its leading attributes (`@Option(...)`, `@MainActor`, `@unchecked`).
    static func strippingAttributes(_ line: String) -> String {
        var rest = Substring(line).drop { $0 == " " || $0 == "\t" }
        while rest.first == "@" {
            rest = rest.dropFirst().drop { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }
            if rest.first == "(" {
                var depth = 0
                var end = rest.startIndex
                for index in rest.indices {
                    if rest[index] == "(" { depth += 1 } else if rest[index] == ")" { depth -= 1 }
                    if depth == 0 { end = index; break }
                }
                rest = rest[rest.index(after: end)...]
            }
            rest = rest.drop { $0 == " " || $0 == "\t" }
        }
        return String(rest)
    }

    static let modifiers: Set<String> = [
        "public", "private", "fileprivate", "internal", "package", "open", "final", "override", "weak",
        "unowned", "lazy", "dynamic", "nonisolated", "mutating", "nonmutating", "required", "convenience",
        "indirect", "static", "class", "private(set)", "fileprivate(set)", "internal(set)", "package(set)",
        "public(set)", "nonisolated(unsafe)", "unowned(unsafe)",
    ]

    /// Splits off the leading modifiers of a declaration.
    static func modifiersAndRest(_ line: String) -> (modifiers: [String], rest: Substring) {
        var rest = Substring(line).drop { $0 == " " || $0 == "\t" }
        var found: [String] = []
        while true {
            let word = rest.prefix { !($0 == " " || $0 == "\t") }
            guard modifiers.contains(String(word)) else { return (found, rest) }
            // `class` is a modifier only before another declaration keyword.
            let after = rest.dropFirst(word.count).drop { $0 == " " || $0 == "\t" }
            let next = String(after.prefix { $0.isLetter })
            if word == "class", !["var", "let", "func", "subscript"].contains(next), !modifiers.contains(next) {
                return (found, rest)
            }
            found.append(String(word))
            rest = after
        }
    }

    /// A `struct`/`class`/`actor`/`enum` declaration's name, or that of a scope whose
    /// declarations are not a type's stored properties (`protocol`, `extension`).
    static func typeDeclaration(_ body: String) -> (name: String, isType: Bool)? {
        let (_, rest) = modifiersAndRest(body)
        for keyword in ["struct", "class", "actor", "enum", "protocol", "extension"] where rest.hasPrefix(keyword + " ") {
            let name = rest.dropFirst(keyword.count + 1).drop { $0 == " " }.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }
            guard !name.isEmpty else { return nil }
            return (String(name), keyword != "protocol" && keyword != "extension")
        }
        return nil
    }

    /// The names a `let`/`var` line stores, or nil if it declares none (`static`, computed).
    /// `next` is the following line, for a body that opens at the end of this one.
    static func storedProperties(_ body: String, next: String) -> [String]? {
        let (found, rest) = modifiersAndRest(body)
        guard !found.contains("static"), !found.contains("class") else { return nil }
        let keyword = rest.prefix { $0.isLetter }
        guard keyword == "let" || keyword == "var" else { return nil }
        // The bindings, split at top-level commas: `let a: Int, b: String`.
        var names: [String] = []
        var depth = 0
        var binding = ""
        var computed = false
        var bindings: [String] = []
        var previous: Character = " "
        for character in rest.dropFirst(keyword.count) {
            if character == ";" { break }
            if "([<".contains(character) {
                depth += 1
            } else if ")]".contains(character) || (character == ">" && previous != "-") {
                depth -= 1
            }
            previous = character
            if character == "{", depth == 0 {
                // A body straight after the type, not after `=`: computed, unless it observes.
                if !binding.contains("=") {
                    let after = rest.split(separator: "{", maxSplits: 1, omittingEmptySubsequences: false).last.map(String.init) ?? ""
                    let observed = after.trimmingCharacters(in: .whitespaces).isEmpty ? next : after
                    let first = observed.trimmingCharacters(in: .whitespaces)
                    computed = !(first.hasPrefix("didSet") || first.hasPrefix("willSet"))
                }
                break
            }
            if character == ",", depth == 0 {
                bindings.append(binding)
                binding = ""
            } else {
                binding.append(character)
            }
        }
        bindings.append(binding)
        guard !computed else { return nil }
        for binding in bindings {
            let name = binding.drop { $0 == " " }.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
            if !name.isEmpty { names.append(String(name)) }
        }
        return names.isEmpty ? nil : names
    }
}
