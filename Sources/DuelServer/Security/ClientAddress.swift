import Glibc

/// The client's address for the per-address caps and throttles.
///
/// Behind a reverse proxy every socket comes from the proxy, so one address would hold
/// the whole service's connection cap and 20 bad logins would lock everyone out. A
/// proxy listed as trusted names the client in `Forwarded` (RFC 7239, preferred) or
/// `X-Forwarded-For`; each proxy appends the address it saw, so the list is read from
/// the right and the first hop that is not a trusted proxy is the client. Hops left of
/// it were written by the client and are ignored. Headers from untrusted peers are
/// ignored entirely. Pure.
enum ClientAddress {
    static func resolve(peer: String, forwarded: String?, forwardedFor: String?, trusted: Set<String>) -> String {
        guard !trusted.isEmpty, trusted.contains(peer) else { return peer }
        let hops: [String?]
        if let forwarded, !forwarded.isEmpty {
            hops = forwardedHops(forwarded)
        } else if let forwardedFor, !forwardedFor.isEmpty {
            hops = forwardedFor.split(separator: ",").map { normalize(String($0)) }
        } else {
            return peer
        }
        for hop in hops.reversed() {
            // A hop a trusted proxy wrote is an address; anything else means the chain is
            // not what we expect, so fall back to the proxy itself.
            guard let address = hop, isIPAddress(address) else { return peer }
            if !trusted.contains(address) { return address }
        }
        return peer
    }

    /// The `for=` values of a `Forwarded` header, in order (one per element).
    private static func forwardedHops(_ header: String) -> [String?] {
        header.split(separator: ",").map { element in
            for pair in element.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2,
                      parts[0].trimmingCharacters(in: " \t").lowercased() == "for" else { continue }
                return normalize(String(parts[1]))
            }
            return nil
        }
    }

    /// Strips spaces, quotes, IPv6 brackets and a port: `"[2001:db8::1]:4711"` → `2001:db8::1`.
    private static func normalize(_ raw: String) -> String? {
        var value = raw.trimmingCharacters(in: " \t")
        if value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 { value = String(value.dropFirst().dropLast()) }
        if value.hasPrefix("[") {
            guard let close = value.firstIndex(of: "]") else { return nil }
            return String(value[value.index(after: value.startIndex)..<close])
        }
        // IPv4 with a port ("192.0.2.1:80"): one colon. Bare IPv6 has several.
        if value.filter({ $0 == ":" }).count == 1, let colon = value.firstIndex(of: ":") {
            value = String(value[..<colon])
        }
        return value.isEmpty ? nil : value
    }

    static func isIPAddress(_ text: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }
}

private extension String {
    func trimmingCharacters(in set: String) -> String {
        var scalars = Substring(self)
        while let first = scalars.first, set.contains(first) { scalars = scalars.dropFirst() }
        while let last = scalars.last, set.contains(last) { scalars = scalars.dropLast() }
        return String(scalars)
    }
}

private extension Substring {
    func trimmingCharacters(in set: String) -> String { String(self).trimmingCharacters(in: set) }
}
