// ClickHouse's schema migrations (clickhouse/migrations/) and their migrator (scripts/lib/clickhouse-migrations.mjs,
// `npm run clickhouse:migrate`), against the suite's server.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient, type ClickHouseClient } from "@clickhouse/client-web";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  MIGRATIONS_DIR,
  belongsElsewhere,
  boundDeployment,
  DeploymentMismatch,
  listMigrations,
  migrate,
  MigrationError,
  splitStatements,
} from "../../scripts/lib/clickhouse-migrations.mjs";
// @ts-expect-error -- a plain ESM script shared with `npm run dev`
import { applyMigrations, deploymentIdentity, executeSql } from "../../scripts/lib/local-worker.mjs";
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
      { name: "deployment", engine: "MergeTree", sorting_key: "bound_at", partition_key: "" },
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
    expect(again).toEqual({ applied: [], skipped: first.applied, binding: null });
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
    expect(await migrate({ url, database, dir })).toEqual({
      applied: ["0002_broken"],
      skipped: ["0001_first"],
      binding: null,
    });
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

  it("copies the persons before a new binding, and after a migration that asks for it on a bound database", async () => {
    const database = fresh("copies");
    const own = mkdtempSync(join(tmpdir(), "edgehog-migrations-copy-"));
    try {
      const calls: string[] = [];
      const run = () =>
        migrate({
          url,
          database,
          dir: own,
          deployment: "copy-deployment",
          copyPersons: async () => void calls.push("copy"),
        });
      // The binding's own table, as the real migrations create it.
      writeFileSync(join(own, "0001_one.sql"), readFileSync(join(MIGRATIONS_DIR, "0004_deployment.sql"), "utf8"));
      await run();
      expect(calls).toEqual(["copy"]);
      await run();
      expect(calls).toEqual(["copy"]);
      writeFileSync(
        join(own, "0002_two.sql"),
        "CREATE TABLE IF NOT EXISTS two (id UInt64) ENGINE = MergeTree ORDER BY id;",
      );
      await run();
      expect(calls).toEqual(["copy"]);
      writeFileSync(
        join(own, "0003_three.sql"),
        "-- edgehog: copy D1's persons after this migration (a test)\nCREATE TABLE IF NOT EXISTS three (id UInt64) ENGINE = MergeTree ORDER BY id;",
      );
      await run();
      expect(calls).toEqual(["copy", "copy"]);
      expect(listMigrations(own).map((m) => m.copiesPersons)).toEqual([false, false, true]);
      expect(listMigrations().find((m) => m.name === "0005_person_list")?.copiesPersons).toBe(true);
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

const bindings = (database: string) =>
  rows<{ id: string; how: string }>("SELECT id, how FROM deployment ORDER BY bound_at", database);

describe("the binding to a deployment", () => {
  it("binds a database to the first deployment that migrates it, and lets it migrate again", async () => {
    const database = fresh("bind");
    const first = await migrate({ url, database, deployment: "deployment-a" });
    expect(first.binding).toEqual({ deployment: "deployment-a", previous: null, changed: true });
    const again = await migrate({ url, database, deployment: "deployment-a" });
    expect(again).toEqual({
      applied: [],
      skipped: first.applied,
      binding: { deployment: "deployment-a", previous: "deployment-a", changed: false },
    });
    expect(await bindings(database)).toEqual([{ id: "deployment-a", how: "migrate" }]);
  });

  it("binds a database migrated before bindings existed to the deployment that migrates it next", async () => {
    const database = fresh("upgrade");
    const dir = mkdtempSync(join(tmpdir(), "edgehog-migrations-"));
    try {
      // The migrations as they were before the binding table: applied without a deployment.
      for (const m of listMigrations().filter((m) => m.name !== "0004_deployment"))
        writeFileSync(join(dir, m.file), m.statements.join(";\n"));
      await migrate({ url, database, dir });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const upgraded = await migrate({ url, database, deployment: "deployment-a" });
    expect(upgraded.applied).toEqual(["0004_deployment"]);
    expect(await bindings(database)).toEqual([{ id: "deployment-a", how: "migrate" }]);
  });

  it("refuses a database bound to another deployment, changing nothing, unless told to adopt it", async () => {
    const database = fresh("adopt");
    await migrate({ url, database, deployment: "deployment-a" });
    // A migration the other deployment's code has: it must not be applied to a database that is not its own.
    const dir = mkdtempSync(join(tmpdir(), "edgehog-migrations-"));
    try {
      for (const m of listMigrations()) writeFileSync(join(dir, m.file), m.statements.join(";\n"));
      writeFileSync(join(dir, "0999_other.sql"), "CREATE TABLE IF NOT EXISTS other (x UInt8) ENGINE = Memory");
      const refused = await migrate({ url, database, dir, deployment: "deployment-b" }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(DeploymentMismatch);
      expect(refused).toBeInstanceOf(MigrationError);
      expect((refused as Error).message).toContain(`database ${database} belongs to another deployment (deployment-a)`);
      expect((refused as Error).message).toContain("--adopt");
      expect((await tablesOf(database)).map((t) => t.name)).not.toContain("other");
      expect(await bindings(database)).toEqual([{ id: "deployment-a", how: "migrate" }]);

      const adopted = await migrate({ url, database, dir, deployment: "deployment-b", adopt: true });
      expect(adopted.applied).toEqual(["0999_other"]);
      expect(adopted.binding).toEqual({ deployment: "deployment-b", previous: "deployment-a", changed: true });
      expect(await boundDeployment({ url, database })).toBe("deployment-b");
      expect(await bindings(database)).toEqual([
        { id: "deployment-a", how: "migrate" },
        { id: "deployment-b", how: "adopt" },
      ]);
      // Adopted, it is deployment B's: A is refused now.
      await expect(migrate({ url, database, dir, deployment: "deployment-a" })).rejects.toThrow(
        /belongs to another deployment \(deployment-b\)/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("tells npm run dev whether local ClickHouse belongs with its local D1", async () => {
    const database = fresh("belongs");
    const check = (deployment: string, fresh: boolean) => belongsElsewhere({ url, database, deployment, fresh });
    expect(await check("deployment-a", true)).toBeNull(); // no database yet
    await migrate({ url, database });
    expect(await check("deployment-a", true)).toBeNull(); // empty, bound to none
    const client = createClient({ url, database });
    try {
      await client.insert({
        table: "events",
        format: "JSONEachRow",
        values: [
          {
            uuid: crypto.randomUUID(),
            team_id: 1,
            event: "e",
            distinct_id: "d",
            properties: "{}",
            timestamp: "2026-01-05 10:00:00",
            created_at: "2026-01-05 10:00:00",
            person_id: null,
          },
        ],
      });
    } finally {
      await client.close();
    }
    // Events bound to no deployment: an earlier D1's beside a fresh one, this D1's own beside one that is not new.
    expect(await check("deployment-a", true)).toBe("it holds events or persons, and this D1 was just created");
    expect(await check("deployment-a", false)).toBeNull();
    await migrate({ url, database, deployment: "deployment-a" });
    expect(await check("deployment-a", true)).toBeNull();
    expect(await check("deployment-b", false)).toBe(
      "it belongs to deployment deployment-a, and this D1 is deployment-b",
    );
  });
});

// Each CLI run starts wrangler (to read the D1 identity) and a ClickHouse client: seconds, not milliseconds.
describe("npm run clickhouse:migrate", { timeout: 60_000 }, () => {
  const script = join(ROOT, "scripts", "clickhouse-migrate.mjs");
  // Two deployments' local D1 (wrangler's local state), each with the identity its migrations created.
  const states: string[] = [];
  const localD1 = () => {
    const state = mkdtempSync(join(tmpdir(), "edgehog-d1-"));
    states.push(state);
    applyMigrations({ persistTo: state, quiet: true });
    return { state, id: deploymentIdentity({ persistTo: state }) as string };
  };
  afterAll(() => {
    for (const state of states) rmSync(state, { recursive: true, force: true });
  });
  // Run without blocking this process: a blocked event loop misses the server closing idle keep-alive
  // sockets, and the next query here would be sent on a closed one.
  const cli = (env: Record<string, string | undefined>, args: string[] = []) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [script, ...args], {
        cwd: ROOT,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d) => (stdout += d));
      child.stderr.on("data", (d) => (stderr += d));
      child.on("close", (status) => resolve({ status, stdout, stderr }));
    });

  it("says what to do when CLICKHOUSE_URL is unset", async () => {
    const result = await cli({});
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("CLICKHOUSE_URL is not set");
  });

  it("migrates the database CLICKHOUSE_DATABASE names and binds it to the D1's deployment; a second run applies nothing", async () => {
    const database = fresh("cli");
    const d1 = localD1();
    const local = ["--local", "--persist-to", d1.state];
    const first = await cli({ CLICKHOUSE_URL: url, CLICKHOUSE_DATABASE: database }, local);
    expect(first.stderr).toBe("");
    expect(first.status).toBe(0);
    expect(first.stdout).toContain(`database ${database}`);
    expect(first.stdout).toContain(`deployment ${d1.id} (local D1)`);
    for (const m of listMigrations()) expect(first.stdout).toContain(`applying ${m.file}`);
    expect(first.stdout).toContain(`bound to deployment ${d1.id}`);
    expect(first.stdout).toContain(`applied ${listMigrations().length} migrations`);
    expect(await boundDeployment({ url, database })).toBe(d1.id);
    const second = await cli({ CLICKHOUSE_URL: url, CLICKHOUSE_DATABASE: database }, local);
    expect(second.status).toBe(0);
    expect(second.stdout).toContain("nothing to apply");
    expect(second.stdout).not.toContain("applying");
    expect(second.stdout).not.toContain("bound to");
  });

  it("refuses another deployment's database, and binds it with --adopt", async () => {
    const database = fresh("cli_adopt");
    const a = localD1();
    const b = localD1();
    expect(a.id).not.toBe(b.id);
    const env = { CLICKHOUSE_URL: url, CLICKHOUSE_DATABASE: database };
    expect((await cli(env, ["--local", "--persist-to", a.state])).status).toBe(0);
    const refused = await cli(env, ["--local", "--persist-to", b.state]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`belongs to another deployment (${a.id}); this deployment's D1 is ${b.id}`);
    expect(refused.stderr).toContain("--adopt");
    expect(await boundDeployment({ url, database })).toBe(a.id);
    const adopted = await cli(env, ["--local", "--persist-to", b.state, "--adopt"]);
    expect(adopted.status, adopted.stderr).toBe(0);
    expect(adopted.stdout).toContain(`adopted: bound to deployment ${b.id} (was ${a.id})`);
    expect(await boundDeployment({ url, database })).toBe(b.id);
  });

  it("copies the D1's persons into the persons mirror before binding, and again with --copy-persons", async () => {
    const database = fresh("cli_copy");
    const d1 = localD1();
    const local = ["--local", "--persist-to", d1.state];
    const uuids = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    executeSql(
      `INSERT INTO projects (id, name, api_token) VALUES (7, 'p', 'phc_copy');
       INSERT INTO persons (id, project_id, uuid, properties, is_identified, created_at, version) VALUES
         (1, 7, '${uuids[0]}', '{"plan":"pro"}', 1, '2026-01-01T00:00:00.000Z', 3),
         (2, 7, '${uuids[1]}', '{}', 0, '2026-01-02T00:00:00.000Z', 0);
       INSERT INTO person_distinct_ids (project_id, distinct_id, person_id) VALUES (7, 'a', 1), (7, 'a2', 1), (7, 'b', 2);`,
      { persistTo: d1.state },
    );
    const env = { CLICKHOUSE_URL: url, CLICKHOUSE_DATABASE: database };
    const first = await cli(env, local);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain("copied 2 of 2 persons to the persons mirror");
    // The copy comes before the binding: the worker never reads a mirror still being filled.
    expect(first.stdout.indexOf("persons copied")).toBeLessThan(first.stdout.indexOf("bound to deployment"));
    const mirror = () =>
      rows<{ id: string; d1_id: number; team_id: number; created_at: string; properties: string; version: string }>(
        `SELECT id, toUInt32(d1_id) AS d1_id, toUInt32(team_id) AS team_id, created_at, properties,
           toString(version) AS version FROM person FINAL
         WHERE is_deleted = 0 ORDER BY d1_id`,
        database,
      );
    const ids = () =>
      rows<{ distinct_id: string; person_id: string }>(
        "SELECT distinct_id, person_id FROM person_distinct_id2 FINAL WHERE is_deleted = 0 ORDER BY distinct_id",
        database,
      );
    expect(await mirror()).toEqual([
      {
        id: uuids[0],
        d1_id: 1,
        team_id: 7,
        created_at: "2026-01-01 00:00:00.000000",
        properties: '{"plan":"pro"}',
        version: String(2 ** 32 + 3),
      },
      {
        id: uuids[1],
        d1_id: 2,
        team_id: 7,
        created_at: "2026-01-02 00:00:00.000000",
        properties: "{}",
        version: String(2 * 2 ** 32),
      },
    ]);
    expect(await ids()).toEqual([
      { distinct_id: "a", person_id: uuids[0] },
      { distinct_id: "a2", person_id: uuids[0] },
      { distinct_id: "b", person_id: uuids[1] },
    ]);

    // Written while the database served another deployment, or none: copied on request.
    executeSql(
      `UPDATE persons SET properties = '{"plan":"free"}', version = 4 WHERE id = 1;
       INSERT INTO persons (id, project_id, uuid, created_at) VALUES (3, 7, '${uuids[2]}', '2026-01-03T00:00:00.000Z');
       INSERT INTO person_distinct_ids (project_id, distinct_id, person_id) VALUES (7, 'c', 3);`,
      { persistTo: d1.state },
    );
    const again = await cli(env, [...local, "--copy-persons"]);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain("persons mirror: 3 persons copied from D1");
    expect((await mirror()).map((p) => [p.d1_id, p.properties])).toEqual([
      [1, '{"plan":"free"}'],
      [2, "{}"],
      [3, "{}"],
    ]);
    expect((await ids()).map((d) => d.distinct_id)).toEqual(["a", "a2", "b", "c"]);
  });

  it("says to apply D1's migrations first when the D1 has no identity", async () => {
    const empty = mkdtempSync(join(tmpdir(), "edgehog-d1-"));
    states.push(empty);
    const result = await cli({ CLICKHOUSE_URL: url, CLICKHOUSE_DATABASE: fresh("cli_none") }, [
      "--local",
      "--persist-to",
      empty,
    ]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("This deployment's D1 has no identity yet");
    expect(result.stderr).toContain("npx wrangler d1 migrations apply DB --local");
  });
});
