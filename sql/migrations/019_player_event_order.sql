-- Orders the announcements of rooms, challenges and rematch offers (issue 22, one delivery route).
-- An instance now delivers its own transactions' player events to its own connections, and hears
-- only other instances' through NOTIFY, so one connection may get two states of one room by two
-- routes. Each announcing transaction takes a number here at its end, while it still holds the
-- room's or challenge's row lock, so the numbers of one room's changes follow their commits, and a
-- receiver drops a state older than one it has delivered (PlayerEvent, docs/ARCHITECTURE.md).
CREATE SEQUENCE player_event_order;
