-- Events, one row per captured event: D1's `events` (src/db/schema.ts) with the project as `team_id`
-- and the person as the uuid D1 assigned at ingestion (NULL without person processing). A merge never
-- rewrites these rows: person_distinct_id_overrides (0002) says which distinct ids read as another person.
--
-- Laid out as PostHog's sharded_events: one partition per month, sorted for a project's time-range scans
-- (then by event, so one event's rows sit together). Duplicates are harmless twice over: a retried batch
-- sent with the same insert_deduplication_token is not stored again (non_replicated_deduplication_window
-- remembers the last 1,000 batches' tokens), and a copy that still gets in (a batch re-sent under another
-- token) has the same sorting key, uuid included, so ReplacingMergeTree keeps one row when parts merge.
CREATE TABLE IF NOT EXISTS events
(
    uuid UUID,
    team_id Int64,
    event String,
    distinct_id String,
    -- The event's properties as JSON text, as D1 stores them; read with JSONExtract*.
    properties String CODEC(ZSTD(3)),
    timestamp DateTime64(6, 'UTC'),
    created_at DateTime64(6, 'UTC'),
    person_id Nullable(UUID),
    -- When the row was stored: the version ReplacingMergeTree keeps the latest of.
    _inserted_at DateTime64(6, 'UTC') DEFAULT now64(6, 'UTC')
)
ENGINE = ReplacingMergeTree(_inserted_at)
PARTITION BY toYYYYMM(timestamp)
ORDER BY (team_id, toDate(timestamp), event, cityHash64(distinct_id), cityHash64(uuid))
SETTINGS non_replicated_deduplication_window = 1000;
