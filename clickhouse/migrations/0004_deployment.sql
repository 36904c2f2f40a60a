-- Which deployment this database belongs to: the identity of its D1 database (D1's `deployment` table), one row
-- per binding. `npm run clickhouse:migrate` writes the first row when it first runs against the database, and
-- another only when told to `--adopt` it for a different D1 (a restored backup); the latest row is the binding
-- and the earlier ones its history. The worker reads and writes nothing here unless the binding is its own
-- D1's identity (src/analytics/clickhouse/deployment.ts), so two deployments never share events or persons.
CREATE TABLE IF NOT EXISTS deployment
(
    id String,
    bound_at DateTime64(3, 'UTC') DEFAULT now64(3, 'UTC'),
    -- 'migrate' for the first binding, 'adopt' for a rebinding.
    how LowCardinality(String)
)
ENGINE = MergeTree
ORDER BY bound_at;
