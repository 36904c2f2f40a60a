-- The person's D1 row id beside its uuid: the persons analysis views answer persons in D1 id order, as on D1,
-- and hydrate them from D1 by that id. Rows mirrored before this carry 0.
ALTER TABLE person ADD COLUMN IF NOT EXISTS d1_id Int64 DEFAULT 0 AFTER id;
