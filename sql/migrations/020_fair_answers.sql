-- Issue 26: the first correct answer is judged by credited time. The server measures each
-- player's round trip and logs it, capped, as an input of its own (kind 'lag'): the engine
-- credits the player's answers by it and waits for them by it, and a rebuild from the log
-- must see the same lags the live engine saw.
ALTER TABLE duel_inputs ADD COLUMN lag_ms integer CHECK (lag_ms >= 0);
ALTER TABLE duel_inputs DROP CONSTRAINT duel_inputs_kind_check;
ALTER TABLE duel_inputs ADD CONSTRAINT duel_inputs_kind_check
    CHECK (kind IN ('answer', 'forfeit', 'advance', 'disconnected', 'reconnected', 'end', 'lag'));
ALTER TABLE duel_inputs ADD CONSTRAINT duel_inputs_lag_check CHECK ((kind = 'lag') = (lag_ms IS NOT NULL));
