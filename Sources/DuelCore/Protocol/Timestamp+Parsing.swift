/// Reading the timestamps clients send (a goal's `remind_at`), in the form the server writes
/// them: ISO 8601 with a date, a time and a zone.
extension Timestamp {
    /// `2026-11-21T22:40:01.123Z`, `2026-11-21T23:40:01+01:00`, `2026-11-21T22:40Z`: the
    /// millisecond Unix time, or nil for anything else (no zone, an impossible date, years
    /// outside 1970-9999). A zone is required: a time without one means a different instant on
    /// every device.
    public static func milliseconds(iso8601 text: String) -> Int64? {
        var scanner = Scanner(Array(text.utf8))
        guard let year = scanner.digits(4), scanner.skip("-"), let month = scanner.digits(2), scanner.skip("-"),
              let day = scanner.digits(2), scanner.skip("T") || scanner.skip("t"),
              let hour = scanner.digits(2), scanner.skip(":"), let minute = scanner.digits(2)
        else { return nil }
        var second: Int64 = 0, milli: Int64 = 0
        if scanner.skip(":") {
            guard let s = scanner.digits(2) else { return nil }
            second = s
            if scanner.skip(".") {
                // Milliseconds from the first three digits; more are allowed and dropped.
                var scale: Int64 = 100, count = 0
                while let digit = scanner.digits(1) {
                    milli += digit * scale
                    scale /= 10
                    count += 1
                }
                guard count > 0 else { return nil }
            }
        }
        var offsetMinutes: Int64 = 0
        if !(scanner.skip("Z") || scanner.skip("z")) {
            let sign: Int64
            if scanner.skip("+") { sign = 1 } else if scanner.skip("-") { sign = -1 } else { return nil }
            guard let oh = scanner.digits(2), scanner.skip(":"), let om = scanner.digits(2), oh < 24, om < 60 else {
                return nil
            }
            offsetMinutes = sign * (oh * 60 + om)
        }
        guard scanner.atEnd, (1970...9999).contains(year), (1...12).contains(month),
              (1...daysIn(month: month, year: year)).contains(day), hour < 24, minute < 60, second < 60
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        return ((days * 24 + hour) * 60 + minute - offsetMinutes) * 60_000 + second * 1_000 + milli
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Howard Hinnant's days-from-civil algorithm, the inverse of ``civilDate(daysSinceEpoch:)``.
    private static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// A cursor over ASCII bytes.
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index == bytes.count }

        mutating func skip(_ character: Unicode.Scalar) -> Bool {
            guard index < bytes.count, bytes[index] == UInt8(character.value) else { return false }
            index += 1
            return true
        }

        /// Exactly `count` decimal digits as a number, or nil (nothing consumed).
        mutating func digits(_ count: Int) -> Int64? {
            guard index + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[index..<(index + count)] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            index += count
            return value
        }
    }
}
