import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
// @ts-expect-error -- a plain ESM script shared with `npm run dev`
import { applyMigrations, executeSql } from "../../scripts/lib/local-worker.mjs";

// `npm run db:search-index` (scripts/person-search-index.mjs) against a real local D1: dropping D1's derived
// persons indexes (for an export, or on a ClickHouse deployment) and rebuilding them from the persons.

const ROOT = join(import.meta.dirname, "..", "..");
const state = mkdtempSync(join(tmpdir(), "edgehog-indexes-"));
afterAll(() => rmSync(state, { recursive: true, force: true }));

const sql = (query: string) => executeSql(query, { persistTo: state }) as Record<string, unknown>[];
const run = (...args: string[]) =>
  spawnSync(process.execPath, [join(ROOT, "scripts", "person-search-index.mjs"), ...args, "--persist-to", state], {
    cwd: ROOT,
    encoding: "utf8",
  });
const objects = () =>
  sql(
    `SELECT type, name FROM sqlite_master WHERE name LIKE 'person_search%' OR name LIKE 'person_property_%'
       OR name LIKE 'person_counts%' ORDER BY name`,
  ).map((r) => `${r.type} ${r.name}`);
const addPerson = (id: number, properties: string) =>
  sql(`INSERT INTO persons (id, project_id, uuid, properties) VALUES (${id}, 1, '00000000-0000-4000-8000-00000000000${id}', '${properties}');
       INSERT INTO person_distinct_ids (project_id, distinct_id, person_id) VALUES (1, 'user-${id}', ${id});`);

describe("npm run db:search-index", { timeout: 120_000 }, () => {
  it("drops the search and property indexes (all), keeps person_counts, and rebuilds them from the persons", () => {
    applyMigrations({ persistTo: state, quiet: true });
    sql("INSERT INTO projects (id, name, api_token) VALUES (1, 'p', 'phc_indexes')");
    addPerson(1, '{"plan":"pro","email":"ada@example.com"}');
    const everything = objects();
    expect(everything).toContain("table person_property_values");
    expect(everything).toContain("table person_search");

    const dropped = run("drop", "all", "--local");
    expect(dropped.status, dropped.stderr).toBe(0);
    expect(objects()).toEqual(everything.filter((o) => o.includes("person_counts")));
    // Writes go on without the triggers; the count is still kept.
    addPerson(2, '{"plan":"free","name":"Grace"}');
    expect(sql("SELECT persons FROM person_counts WHERE project_id = 1")).toEqual([{ persons: 2 }]);

    const rebuilt = run("rebuild", "all", "--local");
    expect(rebuilt.status, rebuilt.stderr).toBe(0);
    expect(objects()).toEqual(everything);
    expect(sql("SELECT person_id, key, value FROM person_property_values ORDER BY person_id, key")).toEqual([
      { person_id: 1, key: "email", value: "ada@example.com" },
      { person_id: 1, key: "plan", value: "pro" },
      { person_id: 2, key: "name", value: "Grace" },
      { person_id: 2, key: "plan", value: "free" },
    ]);
    expect(sql("SELECT rowid FROM person_search WHERE terms LIKE '%grace%'")).toEqual([{ rowid: 2 }]);
    expect(sql("SELECT persons FROM person_counts WHERE project_id = 1")).toEqual([{ persons: 2 }]);
  });

  it("drops only the search index by default (before wrangler d1 export)", () => {
    const dropped = run("drop", "--local");
    expect(dropped.status, dropped.stderr).toBe(0);
    const left = objects();
    expect(left.some((o) => o.includes("person_search"))).toBe(false);
    expect(left).toContain("table person_property_values");
    expect(run("rebuild", "--local").status).toBe(0);
    expect(objects()).toContain("table person_search");
  });

  it("refuses an unknown action or scope", () => {
    const wrong = run("drop", "everything");
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain("usage:");
  });
});
