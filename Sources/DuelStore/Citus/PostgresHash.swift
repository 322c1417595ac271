/// Postgres's `hash_bytes` (Bob Jenkins's lookup3, as in src/common/hashfn.c), which `uuid_hash`
/// applies to a uuid's 16 bytes. Citus places a row of a hash-distributed table by this value of
/// its distribution column, so the server can tell which shard a duel id falls in without asking
/// the database (``ShardMap``). A store test compares it with `uuid_hash` on Postgres itself.
public enum PostgresHash {
    /// `uuid_hash(id)` as Postgres computes it (an int4).
    public static func uuid(_ bytes: [UInt8]) -> Int32 {
        precondition(bytes.count == 16, "a uuid has 16 bytes")
        return Int32(bitPattern: hashBytes(bytes))
    }

    /// The bytes of a uuid in text form (with or without hyphens); nil when it is not one.
    public static func uuidBytes(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        var high: UInt8?
        for unit in text.utf8 where unit != UInt8(ascii: "-") {
            guard let nibble = Self.nibble(unit) else { return nil }
            if let h = high {
                bytes.append(h << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return bytes.count == 16 && high == nil ? bytes : nil
    }

    private static func nibble(_ unit: UInt8) -> UInt8? {
        switch unit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): unit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): unit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): unit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// lookup3 over `key`, reading 32-bit words little-endian (the machine's order, as Postgres
    /// does on x86 and ARM).
    static func hashBytes(_ key: [UInt8]) -> UInt32 {
        func word(_ i: Int) -> UInt32 {
            UInt32(key[i]) | UInt32(key[i + 1]) << 8 | UInt32(key[i + 2]) << 16 | UInt32(key[i + 3]) << 24
        }
        func rot(_ x: UInt32, _ k: UInt32) -> UInt32 { x << k | x >> (32 - k) }
        var len = key.count
        var a: UInt32 = 0x9e37_79b9 &+ UInt32(truncatingIfNeeded: len) &+ 3_923_095
        var b = a
        var c = a
        var at = 0
        while len >= 12 {
            a &+= word(at); b &+= word(at + 4); c &+= word(at + 8)
            a &-= c; a ^= rot(c, 4); c &+= b
            b &-= a; b ^= rot(a, 6); a &+= c
            c &-= b; c ^= rot(b, 8); b &+= a
            a &-= c; a ^= rot(c, 16); c &+= b
            b &-= a; b ^= rot(a, 19); a &+= c
            c &-= b; c ^= rot(b, 4); b &+= a
            at += 12
            len -= 12
        }
        // The last 0-11 bytes; the lowest byte of c is left for the length, as lookup3 does.
        if len >= 9 {
            if len >= 11 { c &+= UInt32(key[at + 10]) << 24 }
            if len >= 10 { c &+= UInt32(key[at + 9]) << 16 }
            c &+= UInt32(key[at + 8]) << 8
        }
        if len >= 8 { b &+= word(at + 4) } else if len >= 5 {
            if len >= 7 { b &+= UInt32(key[at + 6]) << 16 }
            if len >= 6 { b &+= UInt32(key[at + 5]) << 8 }
            b &+= UInt32(key[at + 4])
        }
        if len >= 4 { a &+= word(at) } else if len >= 1 {
            if len >= 3 { a &+= UInt32(key[at + 2]) << 16 }
            if len >= 2 { a &+= UInt32(key[at + 1]) << 8 }
            a &+= UInt32(key[at])
        }
        c ^= b; c &-= rot(b, 14)
        a ^= c; a &-= rot(c, 11)
        b ^= a; b &-= rot(a, 25)
        c ^= b; c &-= rot(b, 16)
        a ^= c; a &-= rot(c, 4)
        b ^= a; b &-= rot(a, 14)
        c ^= b; c &-= rot(b, 24)
        return c
    }
}
