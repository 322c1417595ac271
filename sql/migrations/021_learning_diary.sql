-- Issue 27, item 7: the learning diary's rest.
--
-- A weekly goal may carry a reminder: a time the player chose, at which the server sends them a
-- `goal_reminder` notification, exactly once. `reminded_at` is set in the transaction that
-- stores that notification, so a restart, a retry or a second instance never sends it twice
-- (ProgressRepository.sendReminders). A goal is due at the end of its week, in the player's time
-- zone; a reminder is set between now and then.
ALTER TABLE weekly_goals ADD COLUMN remind_at timestamptz, ADD COLUMN reminded_at timestamptz;
ALTER TABLE weekly_goals ADD CONSTRAINT weekly_goals_reminded_check CHECK (reminded_at IS NULL OR remind_at IS NOT NULL);
-- The reminder job's look for due reminders.
CREATE INDEX weekly_goals_reminders ON weekly_goals (remind_at) WHERE reminded_at IS NULL;

ALTER TABLE notifications DROP CONSTRAINT notifications_kind_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_kind_check
    CHECK (kind IN ('challenge_received', 'challenge_expired', 'achievement', 'level_up', 'goal_reached',
                    'report_resolved', 'quiz_unpublished', 'quiz_promoted', 'goal_reminder'));

-- A player's own note and colour for a bank (`bank_pref_set`): private to them. No row: no note
-- and the bank's own colour. The colour follows the bank everywhere the client shows it.
CREATE TABLE player_banks (
    player_id  uuid NOT NULL REFERENCES players ON DELETE CASCADE,
    bank_id    integer NOT NULL REFERENCES banks ON DELETE CASCADE,
    note       text NOT NULL DEFAULT '' CHECK (length(note) <= 1000 AND octet_length(note) <= 3000),
    color      text CHECK (color ~ '^#[0-9a-f]{6}$'),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (player_id, bank_id)
);
