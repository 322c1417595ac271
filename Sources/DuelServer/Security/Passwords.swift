import CSodium

/// Argon2id password hashing and session tokens, through libsodium.
///
/// Hashing takes tens of milliseconds by design: call it from a worker thread,
/// never from the lws thread.
enum Passwords {
    /// Argon2id cost: 19 MiB and 2 passes, OWASP's minimum recommendation.
    static let memoryLimit = 19 * 1_024 * 1_024
    static let opsLimit = 2

    static func initialize() -> Bool {
        sodium_init() >= 0
    }

    /// The encoded hash (`$argon2id$v=19$m=19456,t=2,p=1$...`), or nil when out of memory.
    static func hash(_ password: String) -> String? {
        var output = [CChar](repeating: 0, count: Int(quizduel_pwhash_strbytes()))
        // withCString passes every UTF-8 byte (even an embedded NUL); the length says where it ends.
        let status = password.withCString { chars in
            crypto_pwhash_str_alg(
                &output, chars, UInt64(password.utf8.count), UInt64(opsLimit), memoryLimit,
                crypto_pwhash_ALG_ARGON2ID13)
        }
        return status == 0 ? String(cString: output) : nil
    }

    static func verify(_ password: String, hash: String) -> Bool {
        hash.withCString { encoded in
            password.withCString { chars in
                crypto_pwhash_str_verify(encoded, chars, UInt64(password.utf8.count)) == 0
            }
        }
    }

    /// A compare-time stand-in for unknown usernames, so their timing matches real ones.
    static let decoyHash: String = hash("decoy password never used") ?? ""
}

/// Session tokens: 32 random bytes, sent to the client as hex, stored only as a hash.
enum Tokens {
    static func generate() -> String {
        var bytes = [UInt8](repeating: 0, count: 32)
        randombytes_buf(&bytes, bytes.count)
        return hex(bytes)
    }

    /// The 32-byte BLAKE2b hash stored in `sessions.token_hash`.
    static func hash(_ token: String) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        let input = Array(token.utf8)
        crypto_generichash(&output, output.count, input, UInt64(input.count), nil, 0)
        return output
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] })
    }

    /// Bytes from lowercase or uppercase hex (as Postgres's `encode(…, 'hex')` writes them);
    /// nil for anything else.
    static func bytes(hex text: Substring) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
