/** What a run answers (HogQL rows or an insight's result), with when it was computed. */
interface Cacheable {
  last_refresh: string;
}

/** Results above this size are not cached (a Durable Object SQLite value holds at most 2 MB). */
const MAX_CACHED_BYTES = 1_500_000;

/** Run results cached in the endpoint's Durable Object storage, keyed by version, variables and limit. */
export class ResultCache {
  constructor(private readonly sql: SqlStorage) {}

  createTable(): void {
    this.sql.exec(
      "CREATE TABLE IF NOT EXISTS result_cache (key TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, refreshed_at INTEGER NOT NULL)",
    );
  }

  /** A cached result younger than the cache age and than the latest materialization, if any. */
  get<T extends Cacheable>(key: string, maxAgeSeconds: number, materializedAt: string | null): T | null {
    const row = this.sql
      .exec<{ body: string; refreshed_at: number }>("SELECT body, refreshed_at FROM result_cache WHERE key = ?", key)
      .toArray()[0];
    if (!row) return null;
    if (row.refreshed_at + maxAgeSeconds * 1000 <= Date.now()) return null;
    if (materializedAt && row.refreshed_at < Date.parse(materializedAt)) return null;
    return JSON.parse(row.body) as T;
  }

  put(key: string, version: number, output: Cacheable): void {
    const body = JSON.stringify(output);
    if (body.length > MAX_CACHED_BYTES) return;
    // Entries older than a day can never be fresh (the longest cache age is 86400 s).
    this.sql.exec("DELETE FROM result_cache WHERE refreshed_at < ?", Date.now() - 86_400_000);
    this.sql.exec(
      "INSERT INTO result_cache (key, version, body, refreshed_at) VALUES (?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET body = excluded.body, refreshed_at = excluded.refreshed_at",
      key,
      version,
      body,
      Date.parse(output.last_refresh),
    );
  }

  dropVersion(version: number): void {
    this.sql.exec("DELETE FROM result_cache WHERE version = ?", version);
  }
}
