/// Whether other instances must hear of a game's events (a NOTIFY): unless every player of it
/// is held by this instance and none is also connected on another one (`shared`). The one home
/// of that rule: duel delivery asks it with the players it holds, the matcher with the queue's
/// `instance` column, practice with its one player. (Whether any other instance runs at all is
/// the lanes' own switch, `DuelLanes.setAnnouncing`: with none, nothing is announced.)
public enum Announcement {
    /// Inlinable: asked for every input on the lws thread, where the unspecialized generic
    /// looked up its type metadata on each call (bench/NOTES.md item 45).
    @inlinable
    public static func needed<Players: Sequence<PlayerID>>(
        players: Players, heldHere: (PlayerID) -> Bool, shared: Set<PlayerID>
    ) -> Bool {
        players.contains { !heldHere($0) || shared.contains($0) }
    }
}
