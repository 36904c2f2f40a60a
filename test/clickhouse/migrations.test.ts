// ClickHouse's schema migrations (clickhouse/migrations/) and their migrator (scripts/lib/clickhouse-migrations.mjs,
// `npm run clickhouse:migrate`), against the suite's server.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient, type ClickHouseClient } from "@clickhouse/client-web";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { listMigrations, migrate, MigrationError, splitStatements } from "../../scripts/lib/clickhouse-migrations.mjs";
import { databaseName } from "./database";

const url = inject("clickhouseUrl");
const ROOT = join(import.meta.dirname, "..", "..");

let admin: ClickHouseClient;
const databases: string[] = [];

/** A database name for one test, dropped after the file. */
function fresh(prefix: string) {
  const name = databaseName(prefix);
  databases.push(name);
  return name;
}

async function rows<T>(query: string, database: string): Promise<T[]> {
  const client = createClient({ url, database });
  try {
    return await (await client.query({ query, format: "JSONEachRow" })).json<T>();
  } finally {
    await client.close();
  }
}

const tablesOf = (database: string) =>
  rows<{ name: string; engine: string; sorting_key: string; partition_key: string }>(
    "SELECT name, engine, sorting_key, partition_key FROM system.tables WHERE database = currentDatabase() ORDER BY name",
    database,
  );

const recorded = (database: string) =>
  rows<{ version: number; name: string }>(
    "SELECT version, name FROM schema_migrations FINAL ORDER BY version",
    database,
  );

beforeAll(() => {
  admin = createClient({ url });
});

afterAll(async () => {
  for (const database of databases) await admin.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  await admin.close();
});

describe("the schema", () => {
  it("applies to a fresh database (created if missing), and a second run applies nothing and changes nothing", async () => {
    const database = fresh("migrate");
    const lines: string[] = [];
    const first = await migrate({ url, database, log: (line) => lines.push(line) });
    expect(first.applied).toEqual(listMigrations().map((m) => m.name));
    expect(first.skipped).toEqual([]);
    expect(lines).toEqual(listMigrations().map((m) => expect.stringContaining(`applying ${m.file}`)));
    const tables = await tablesOf(database);
    expect(tables).toEqual([
      {
        name: "events",
        engine: "ReplacingMergeTree",
        sorting_key: "team_id, toDate(timestamp), event, cityHash64(distinct_id), cityHash64(uuid)",
        partition_key: "toYYYYMM(timestamp)",
      },
      { name: "person", engine: "ReplacingMergeTree", sorting_key: "team_id, id", partition_key: "" },
      {
        name: "person_distinct_id2",
        engine: "ReplacingMergeTree",
        sorting_key: "team_id, distinct_id",
        partition_key: "",
      },
      {
        name: "person_distinct_id_overrides",
        engine: "ReplacingMergeTree",
        sorting_key: "team_id, distinct_id",
        partition_key: "",
      },
      { name: "schema_migrations", engine: "ReplacingMergeTree", sorting_key: "version", partition_key: "" },
    ]);
    expect(await recorded(database)).toEqual(listMigrations().map(({ version, name }) => ({ version, name })));

    const again = await migrate({ url, database });
    expect(again).toEqual({ applied: [], skipped: first.applied });
    expect(await tablesOf(database)).toEqual(tables);
    expect(await recorded(database)).toEqual(listMigrations().map(({ version, name }) => ({ version, name })));
  });

  it("stores a retried batch of events once (insert_deduplication_token)", async () => {
    const database = fresh("dedup");
    await migrate({ url, database });
    const client = createClient({ url, database });
    try {
      const batch = [1, 2, 3].map((i) => ({
        uuid: crypto.randomUUID(),
        team_id: 1,
        event: "e",
        distinct_id: `d${i}`,
        properties: "{}",
        timestamp: "2026-01-05 10:00:00",
        created_at: "2026-01-05 10:00:00",
        person_id: null,
      }));
      const insert = () =>
        client.insert({
          table: "events",
          values: batch,
          format: "JSONEachRow",
          clickhouse_settings: { insert_deduplication_token: "batch-1" },
        });
      await insert();
      await insert();
      expect(await rows("SELECT count() AS n FROM events", database)).toEqual([{ n: 3 }]);
      // An event re-sent in another batch gets in, but shares its copy's sorting key: merging keeps one.
      await client.insert({ table: "events", values: [batch[0]], format: "JSONEachRow" });
      expect(await rows("SELECT count() AS n FROM events", database)).toEqual([{ n: 4 }]);
      expect(await rows("SELECT count() AS n FROM events FINAL", database)).toEqual([{ n: 3 }]);
    } finally {
      await client.close();
    }
  });
});

describe("the migrator", () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "edgehog-migrations-"));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const write = (file: string, sql: string) => writeFileSync(join(dir, file), sql);

  it("stops at a failing statement with its file and number, records nothing of it, and resumes once fixed", async () => {
    const database = fresh("bad");
    write("0001_first.sql", "CREATE TABLE IF NOT EXISTS one (id UInt64) ENGINE = MergeTree ORDER BY id;");
    write(
      "0002_broken.sql",
      "-- two statements; the second is wrong\nCREATE TABLE IF NOT EXISTS two (id UInt64) ENGINE = MergeTree ORDER BY id;\nCREATE TABLE IF NOT EXISTS three (id UInt64) ENGINE = NoSuchEngine ORDER BY id;\n",
    );
    const failure = await migrate({ url, database, dir }).then(
      () => new Error("expected the migration to fail"),
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(MigrationError);
    expect((failure as Error).message).toMatch(/^0002_broken\.sql, statement 2 of 2, failed: .*NoSuchEngine/);
    expect(await recorded(database)).toEqual([{ version: 1, name: "0001_first" }]);

    write(
      "0002_broken.sql",
      "CREATE TABLE IF NOT EXISTS two (id UInt64) ENGINE = MergeTree ORDER BY id;\nCREATE TABLE IF NOT EXISTS three (id UInt64) ENGINE = MergeTree ORDER BY id;\n",
    );
    expect(await migrate({ url, database, dir })).toEqual({ applied: ["0002_broken"], skipped: ["0001_first"] });
    expect((await tablesOf(database)).map((t) => t.name)).toEqual(["one", "schema_migrations", "three", "two"]);
  });

  it("refuses a renamed migration, a badly named file and two files of one version", async () => {
    const database = fresh("renamed");
    const own = mkdtempSync(join(tmpdir(), "edgehog-migrations-"));
    try {
      writeFileSync(join(own, "0001_first.sql"), "SELECT 1");
      await migrate({ url, database, dir: own });
      rmSync(join(own, "0001_first.sql"));
      writeFileSync(join(own, "0001_renamed.sql"), "SELECT 1");
      await expect(migrate({ url, database, dir: own })).rejects.toThrow(/applied as 0001_first/);
      writeFileSync(join(own, "0001_first.sql"), "SELECT 1");
      expect(() => listMigrations(own)).toThrow(/share version 1/);
      rmSync(join(own, "0001_first.sql"));
      rmSync(join(own, "0001_renamed.sql"));
      writeFileSync(join(own, "1_Bad Name.sql"), "SELECT 1");
      expect(() => listMigrations(own)).toThrow(/NNNN_name\.sql/);
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });

  it("splits statements at semicolons outside quotes and comments", () => {
    expect(
      splitStatements(
        "-- a; comment\nCREATE TABLE a (s String DEFAULT 'x;y') ENGINE = Memory;\n/* b; */ SELECT \"c;d\", `e;f`, 'it\\'s;'; ; -- trailing\n",
      ),
    ).toEqual([
      "-- a; comment\nCREATE TABLE a (s String DEFAULT 'x;y') ENGINE = Memory",
      "/* b; */ SELECT \"c;d\", `e;f`, 'it\\'s;'",
    ]);
  });
});

describe("npm run clickhouse:migrate", () => {
  const script = join(ROOT, "scripts", "clickhouse-migrate.mjs");
  const cli = (env: Record<string, string | undefined>) =>
    spawnSync(process.execPath, [script], {
      env: { PATH: process.env.PATH, ...env },
      encoding: "utf8",
    });

  it("says what to do when CLICKHOUSE_URL is unset", () => {
    const result = cli({});
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("CLICKHOUSE_URL is not set");
  });

  it("migrates the database CLICKHOUSE_DATABASE names, printing what it does; a second run applies nothing", () => {
    const database = fresh("cli");
    const first = cli({ CLICKHOUSE_URL: url, CLICKHOUSE_DATABASE: database });
    expect(first.stderr).toBe("");
    expect(first.status).toBe(0);
    expect(first.stdout).toContain(`database ${database}`);
    for (const m of listMigrations()) expect(first.stdout).toContain(`applying ${m.file}`);
    expect(first.stdout).toContain(`applied ${listMigrations().length} migrations`);
    const second = cli({ CLICKHOUSE_URL: url, CLICKHOUSE_DATABASE: database });
    expect(second.status).toBe(0);
    expect(second.stdout).toContain("nothing to apply");
    expect(second.stdout).not.toContain("applying");
  });
});
