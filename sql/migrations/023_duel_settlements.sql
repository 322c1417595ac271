-- Issue 24: a finished game's debts to its players' rows, recorded on the game's own shard.
-- What a game's end (or a player's leaving) writes for its players (ratings and their history,
-- progress, practice counts, live markers, the room's announcement) lives, on Citus, on the
-- players' shards, so writing it in the lane's transaction made that transaction commit on
-- several shards with two phases. On Citus the lane records here that the game owes its players
-- (a row in the duel's shard, in the lane's one-shard transaction), and settles it in a
-- transaction of its own right after the commit; a crash in between leaves the row, which the
-- sweep settles. The row is deleted by the transaction that settles it, so a game is settled once.
-- Plain Postgres writes the same rows in the lane's transaction and never uses this table
-- (docs/ARCHITECTURE.md, "Settling a finished game").
CREATE TABLE duel_settlements (
    -- No foreign key to duels: on a Citus cluster placed before this migration the table is
    -- created on the coordinator first, where a key to a distributed table is refused; the
    -- settling transaction reads the duel by this id, and a row with no duel would settle nothing.
    duel_id uuid PRIMARY KEY,
    -- The duel's input count (duels.inputs) at the last round that recorded a debt: the state
    -- the settlement must be built from. A later round of the same duel (a player left, then the
    -- game ended, maybe on another instance) raises it while the row waits, and a settler whose
    -- own state is older rebuilds the game from its log up to this input.
    version integer NOT NULL CHECK (version >= 1),
    recorded_at timestamptz NOT NULL DEFAULT now()
);
