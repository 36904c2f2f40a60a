-- The mirror of D1's persons (D1 stays authoritative): each write to a person or a distinct id inserts a
-- row with a higher version, and readers take the latest version of each key (argMax), since
-- ReplacingMergeTree only collapses older versions when parts merge. A deletion is a row with
-- is_deleted = 1 and a higher version. Laid out as PostHog's person and person_distinct_id2.

-- One row per version of a person; `id` is the person's uuid (HogQL's persons.id and events.person_id).
CREATE TABLE IF NOT EXISTS person
(
    id UUID,
    team_id Int64,
    created_at DateTime64(6, 'UTC'),
    properties String CODEC(ZSTD(3)),
    is_identified UInt8,
    is_deleted UInt8 DEFAULT 0,
    version UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (team_id, id);

-- Which person each distinct id belongs to now.
CREATE TABLE IF NOT EXISTS person_distinct_id2
(
    team_id Int64,
    distinct_id String,
    person_id UUID,
    is_deleted UInt8 DEFAULT 0,
    version UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (team_id, distinct_id);

-- The distinct ids whose events must be read as another person than the one stored on them: written when
-- persons merge, joined when events are read (PostHog's person_distinct_id_overrides), so a merge never
-- rewrites event rows. Only merged distinct ids have a row, which keeps the join small.
CREATE TABLE IF NOT EXISTS person_distinct_id_overrides
(
    team_id Int64,
    distinct_id String,
    person_id UUID,
    is_deleted UInt8 DEFAULT 0,
    version UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (team_id, distinct_id);
