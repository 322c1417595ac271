import Foundation

/// Maps a request path to a file of the web client, refusing anything outside its folder.
struct StaticFiles {
    let root: String

    static let types = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "mjs": "text/javascript; charset=utf-8",
        "css": "text/css; charset=utf-8", "json": "application/json", "svg": "image/svg+xml", "png": "image/png",
        "ico": "image/x-icon", "webmanifest": "application/manifest+json", "txt": "text/plain; charset=utf-8",
    ]

    /// The file and its MIME type, or nil for a path that is not a servable file.
    func resolve(_ path: String) -> (file: String, type: String)? {
        var clean = String(path.split(separator: "?", maxSplits: 1).first ?? "")
        if clean.hasSuffix("/") { clean += "index.html" }
        let parts = clean.split(separator: "/")
        // No "..", no hidden files, nothing odd: the web client has plain names.
        guard !parts.isEmpty, parts.allSatisfy({ !$0.hasPrefix(".") && !$0.contains("\\") }) else { return nil }
        let file = root + "/" + parts.joined(separator: "/")
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), !isDirectory.boolValue else { return nil }
        let ext = parts.last!.split(separator: ".").last.map(String.init) ?? ""
        return (file, Self.types[ext] ?? "application/octet-stream")
    }
}
