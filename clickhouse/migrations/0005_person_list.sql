-- edgehog: copy D1's persons after this migration: the persons list reads the mirror for every person, including
-- those written before the deployment used ClickHouse and those mirrored before 0003 (d1_id 0).
-- What the persons list reads instead of parsing every person's JSON (src/analytics/clickhouse/persons-list.ts):
-- ClickHouse computes these columns when a row is inserted (the queue's rows do not change), and for rows stored
-- before this migration when they are read, until the MATERIALIZE statements below have rewritten them.

-- A hash of each top-level property's key that is set (not JSON null), and of each key with its value as the
-- filter compiler's text (a string as itself; a number, boolean, object or array as its JSON), so `is_set`,
-- `exact` and `in` read eight bytes per property instead of the JSON (property-filters.ts, personHashes).
ALTER TABLE person
    ADD COLUMN IF NOT EXISTS property_keys Array(UInt64) MATERIALIZED
        arrayMap(kv -> cityHash64(kv.1), arrayFilter(kv -> kv.2 != 'null', JSONExtractKeysAndValuesRaw(properties)));

ALTER TABLE person
    ADD COLUMN IF NOT EXISTS property_values Array(UInt64) MATERIALIZED
        arrayMap(
            kv -> cityHash64(kv.1, if(startsWith(kv.2, '"'), JSONExtractString(kv.2), kv.2)),
            arrayFilter(kv -> kv.2 != 'null', JSONExtractKeysAndValuesRaw(properties)));

-- The email and name as SQLite's json_extract gives them as text (what D1's search compares: a string as itself,
-- true/false as 1/0, another value as its JSON; nothing when missing or JSON null), joined by a NUL: a search
-- reads this one narrow column (a term holding a NUL, which could span the two, reads the JSON instead).
ALTER TABLE person
    ADD COLUMN IF NOT EXISTS search_text String MATERIALIZED concat(
        multiIf(
            JSONType(properties, 'email') = 'Null', '',
            JSONType(properties, 'email') = 'String', JSONExtractString(properties, 'email'),
            JSONType(properties, 'email') = 'Bool', if(JSONExtractBool(properties, 'email'), '1', '0'),
            JSONExtractRaw(properties, 'email')),
        '\0',
        multiIf(
            JSONType(properties, 'name') = 'Null', '',
            JSONType(properties, 'name') = 'String', JSONExtractString(properties, 'name'),
            JSONType(properties, 'name') = 'Bool', if(JSONExtractBool(properties, 'name'), '1', '0'),
            JSONExtractRaw(properties, 'name')));

-- A value few persons hold (`n = 4242`) reads only the granules that may hold it.
ALTER TABLE person ADD INDEX IF NOT EXISTS person_property_values property_values TYPE bloom_filter(0.01) GRANULARITY 1;

ALTER TABLE person ADD INDEX IF NOT EXISTS person_property_keys property_keys TYPE bloom_filter(0.01) GRANULARITY 1;

-- A search reads the distinct ids holding its term's trigrams (a term with a letter outside a-f skips every
-- granule of uuid-like anonymous ids; see persons-list.ts for the LIKE it runs).
ALTER TABLE person_distinct_id2
    ADD INDEX IF NOT EXISTS distinct_id_trigrams lower(distinct_id) TYPE ngrambf_v1(3, 4096, 2, 0) GRANULARITY 1;

-- Rows stored before this migration: rewritten in the background (a mutation); reads are right meanwhile.
ALTER TABLE person MATERIALIZE COLUMN property_keys;

ALTER TABLE person MATERIALIZE COLUMN property_values;

ALTER TABLE person MATERIALIZE COLUMN search_text;

ALTER TABLE person MATERIALIZE INDEX person_property_values;

ALTER TABLE person MATERIALIZE INDEX person_property_keys;

ALTER TABLE person_distinct_id2 MATERIALIZE INDEX distinct_id_trigrams;
