import DuelCore

/// Who a bot is on the server: it signs up (or `auth`s with a given token) and keeps the
/// session token, with which it signs in again after a dropped connection (`--reconnect`).
///
/// A value in its ``Bot``, which sends the request this builds and hands over the reply.
/// The reply is read in full, with the JSON parser: once per sign-in, not per frame.
struct BotSession {
    /// What a sign-in reply said.
    struct Login {
        /// The player's id, hashed as frames' ids are (``BotFrame``).
        let player: UInt64
        /// A duel left over from an earlier run with the same token.
        let leftoverDuel: String?
    }

    /// The token this bot was given (`--tokens`), if any: it signs in with it instead of signing up.
    private let givenToken: String?
    /// The account a bot without a token signs up as, unique per run.
    private let username: String
    /// The session token once known (given, or from the sign-up reply).
    private(set) var token: String?

    init(index: Int, configuration: BotConfiguration) {
        givenToken = index < configuration.tokens.count ? configuration.tokens[index] : nil
        username = "bot-\(configuration.runID)-\(index)"
    }

    /// The bot signs up (it has no token): a refusal for a full password-hashing queue is
    /// worth retrying.
    var signsUp: Bool { givenToken == nil }

    /// `auth` with the session's token, or `signup`.
    func request(ref: Int) -> JSONValue {
        if let token = token ?? givenToken {
            return .object(["op": "auth", "ref": .number(ref), "token": .string(token)])
        }
        return .object([
            "op": "signup", "ref": .number(ref), "username": .string(username), "password": "bot password 123",
        ])
    }

    /// Reads a sign-in reply: nil when it has no player (a refusal, or a reply that makes no sense).
    mutating func read(reply bytes: UnsafeRawBufferPointer) -> Login? {
        guard let reply = try? JSONParser.parse(bytes), let id = reply["data"]?["player"]?["id"]?.string else {
            return nil
        }
        if let given = reply["data"]?["token"]?.string { token = given }
        if token == nil { token = givenToken }
        return Login(
            player: Array(id.utf8).withUnsafeBytes { $0.fnv1a }, leftoverDuel: reply["data"]?["duel"]?["id"]?.string)
    }
}
