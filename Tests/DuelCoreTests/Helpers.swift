import Foundation

/// Round-trips a value through JSON, as the store does with the duel state.
enum JSONEncoderish {
    static func roundTrip<T: Codable>(_ value: T) throws -> T {
        try JSONDecoder().decode(T.self, from: JSONEncoder().encode(value))
    }
}
