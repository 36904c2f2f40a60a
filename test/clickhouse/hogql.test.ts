// HogQL compiled to ClickHouse SQL and run on real ClickHouse (local-clickhouse, or CLICKHOUSE_URL): the same
// construct cases as D1's suite (test/hogql/cases.ts, identical rows but for the differences the cases name),
// then what ClickHouse lifts, project isolation, merges through the overrides table, variables, refusals and
// the settings every run sends.
import createHogQLParser, { type HogQLParser } from "@posthog/hogql-parser";
import { ClickHouseError } from "@clickhouse/client-web";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runHogQLOnClickHouse } from "../../src/analytics/clickhouse/hogql";
import { compileHogQLForClickHouse } from "../../src/hogql/clickhouse/compile";
import { HOGQL_SETTINGS } from "../../src/hogql/clickhouse/settings";
import { type VariableType, variableTypeOf } from "../../src/hogql/clickhouse/variables";
import { HogQLError } from "../../src/hogql/errors";
import { CASE_GROUPS, OTHER_DATA, PROJECT_DATA, type QueryCase, type Row } from "../hogql/cases";
import type { SeedData } from "../seed-data";
import { migratedDatabase, type TestDatabase } from "./database";
import { insert, mergeInClickHouse, seedClickHouse } from "./seed";

const url = inject("clickhouseUrl");

const TEAM = 101;
const OTHER = 102;
/**
 * A third project whose data looks like TEAM's (the same distinct ids, persons with other properties, overrides
 * of TEAM's distinct ids): if any catalog table leaked across projects, TEAM's expected rows would change.
 */
const LOOKALIKE = 103;
const LOOKALIKE_DATA: SeedData = {
  persons: [
    { distinctIds: ["alice", "carol"], properties: { email: "mallory@example.com", plan: "enterprise" } },
    { distinctIds: ["bob", "dave"], properties: { email: "eve@example.com" }, isIdentified: true },
  ],
  events: [
    {
      event: "$pageview",
      distinctId: "alice",
      timestamp: "2026-01-05T10:30:00.000Z",
      properties: { $browser: "Chrome" },
    },
    { event: "signup", distinctId: "dave", timestamp: "2026-01-06T10:30:00.000Z", properties: { amount: 100 } },
  ],
};

let parser: HogQLParser;
let db: TestDatabase;

function compile(text: string, variables: Record<string, unknown> = {}) {
  const variableTypes = Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, variableTypeOf(v)]));
  return compileHogQLForClickHouse(text, { parser, variableTypes });
}

/** Compiles and runs a query for `teamId` in `timezone`, returning rows as objects (as D1's suite does). */
async function run(text: string, variables: Record<string, unknown> = {}, teamId = TEAM, timezone = "UTC") {
  const compiled = compile(text, variables);
  const rows = await runHogQLOnClickHouse(db.client, compiled, {
    teamId,
    timezone,
    limit: compiled.limit ?? 100,
    values: variables,
  });
  return rows.results.map((row) => Object.fromEntries(rows.columns.map((column, i) => [column, row[i]])));
}

function refused(text: string, variableTypes: Record<string, VariableType> = {}) {
  try {
    compileHogQLForClickHouse(text, { parser, variableTypes });
  } catch (error) {
    expect(error).toBeInstanceOf(HogQLError);
    return (error as Error).message;
  }
  throw new Error(`compiled: ${text}`);
}

const sorted = (rows: Row[]) => [...rows].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));

async function check(c: QueryCase) {
  const rows = await run(c.query, c.variables, c.other ? OTHER : TEAM);
  if (c.columns) expect(Object.keys(rows[0]), c.query).toEqual(c.columns);
  else {
    const expected = c.clickhouse?.rows ?? c.rows!;
    if (c.unordered) expect(sorted(rows), c.query).toEqual(sorted(expected));
    else expect(rows, c.query).toEqual(expected);
  }
}

beforeAll(async () => {
  parser = await createHogQLParser();
  db = await migratedDatabase(url, "hogql");
  await seedClickHouse(db.client, TEAM, PROJECT_DATA);
  await seedClickHouse(db.client, OTHER, OTHER_DATA);
  const [mallory] = await seedClickHouse(db.client, LOOKALIKE, LOOKALIKE_DATA);
  // Overrides in the lookalike project for distinct ids TEAM has too: TEAM's events must not follow them.
  await insert(
    db.client,
    "person_distinct_id_overrides",
    ["bob", "carol"].map((distinct_id) => ({ team_id: LOOKALIKE, distinct_id, person_id: mallory, version: 5 })),
  );
});

afterAll(async () => {
  await db?.drop();
});

describe("HogQL compiled to ClickHouse: the construct cases", () => {
  for (const group of CASE_GROUPS) {
    it(group.name, async () => {
      for (const c of group.cases) await check(c);
      for (const r of group.refusals ?? []) {
        const on = r.clickhouse;
        if (on && "lifted" in on) compile(r.query);
        else expect(refused(r.query), r.query).toMatch(on?.message ?? r.message);
      }
    });
  }
});

const countWhere = (condition: string, variables: Record<string, unknown> = {}, teamId = TEAM, timezone = "UTC") =>
  run(`select count() as c from events where ${condition}`, variables, teamId, timezone);

describe("what ClickHouse lifts (refused on SQLite)", () => {
  it("reads times in the project's time zone: buckets, parts, dates and datetime literals", async () => {
    const paris = (text: string) => run(text, {}, TEAM, "Europe/Paris");
    // 2026-01-05T10:15Z is 11:15 in Paris; 2026-01-07T23:59:59.999Z is already 8 January there.
    expect(await paris("select toDate(timestamp) as d, count() as c from events group by d order by d")).toEqual([
      { d: "2026-01-05", c: 2 },
      { d: "2026-01-06", c: 1 },
      { d: "2026-01-08", c: 1 },
      { d: "2026-01-12", c: 1 },
    ]);
    expect(
      await paris(
        "select timestamp, toStartOfDay(timestamp) as day, toHour(timestamp) as h, toStartOfMonth(timestamp) as month, toStartOfWeek(timestamp) as week from events order by timestamp limit 1",
      ),
    ).toEqual([
      {
        // Times come back as instants in UTC, whatever the zone they were computed in.
        timestamp: "2026-01-05T10:15:00.000Z",
        day: "2026-01-04T23:00:00.000Z",
        h: 11,
        month: "2025-12-31T23:00:00.000Z",
        week: "2026-01-03T23:00:00.000Z",
      },
    ]);
    // A literal time is in the project's zone: noon in Paris is 11:00 UTC.
    expect(await countWhere("timestamp < '2026-01-05 12:00'", {}, TEAM, "Europe/Paris")).toEqual([{ c: 1 }]);
    expect(await countWhere("timestamp < '2026-01-05 12:00'")).toEqual([{ c: 2 }]);
    // Day boundaries crossed in Paris: none between 00:00 and 02:00 on 6 January.
    expect(await paris("select dateDiff('day', '2026-01-05T23:00:00Z', '2026-01-06T01:00:00Z') as d")).toEqual([
      { d: 0 },
    ]);
    expect(await paris("select today() = toDate(now()) as same")).toEqual([{ same: 1 }]);
  });

  it("takes an explicit time-zone argument", async () => {
    expect(
      await run(
        "select toStartOfDay(timestamp, 'America/New_York') as d, toDateTime(timestamp, 'Asia/Tokyo') as t, toHour(timestamp, 'Asia/Tokyo') as h, toStartOfInterval(timestamp, interval 1 month) as m from events order by timestamp limit 1",
      ),
    ).toEqual([{ d: "2026-01-05T05:00:00.000Z", t: "2026-01-05T10:15:00.000Z", h: 19, m: "2026-01-01T00:00:00.000Z" }]);
    expect(refused("select toStartOfDay(timestamp, 'Mars/Olympus') from events")).toContain("unknown time zone");
  });

  it("has array functions, over literals and over array properties", async () => {
    expect(
      await run(
        "select splitByChar(',', 'a,b,c') as parts, has(['a', 'b'], 'b') as found, length([1, 2, 3]) as n, arrayStringConcat(arraySort(['b', 'a']), '-') as joined, indexOf(['x', 'y'], 'y') as at",
      ),
    ).toEqual([{ parts: '["a","b","c"]', found: 1, n: 3, joined: "a-b", at: 2 }]);
    expect(await countWhere("has(properties.arr, 20)")).toEqual([{ c: 1 }]);
    expect(await run("select arraySort(groupUniqArray(event)) as names from events")).toEqual([
      { names: '["$pageview","signup"]' },
    ]);
    // groupArray keeps a property's JSON types, as D1's json_group_array does (in no defined order).
    const [{ amounts }] = await run(
      "select groupArray(properties.amount) as amounts from events where properties.amount > 0",
    );
    expect(JSON.parse(String(amounts)).sort()).toEqual([5, 7]);
  });

  it("matches regular expressions (RE2)", async () => {
    expect(await countWhere("properties.$browser =~ '^Chr'")).toEqual([{ c: 2 }]);
    expect(await countWhere("properties.$browser =~* '^chr'")).toEqual([{ c: 2 }]);
    expect(await countWhere("properties.$browser !~ '^Chr'")).toEqual([{ c: 3 }]);
    expect(await countWhere("match(distinct_id, '^alice')")).toEqual([{ c: 2 }]);
    expect(
      await run("select extract('alice-2', '-([0-9]+)$') as n, replaceRegexpAll('a1b22', '[0-9]+', '#') as r"),
    ).toEqual([{ n: "2", r: "a#b#" }]);
  });
});

describe("project isolation", () => {
  it("never shows another project's events, persons or overrides, even for the same distinct ids", async () => {
    expect(await run("select count() as c from persons")).toEqual([{ c: 2 }]);
    expect(await run("select count() as c from persons", {}, LOOKALIKE)).toEqual([{ c: 2 }]);
    // LOOKALIKE overrides carol and bob to its own person; in TEAM carol has no person and bob keeps his.
    expect(
      await run(
        "select distinct_id, person_id is null as none, person.properties.email as email from events where distinct_id in ('bob', 'carol') order by timestamp",
      ),
    ).toEqual([
      { distinct_id: "bob", none: 0, email: "bob@example.com" },
      { distinct_id: "bob", none: 0, email: "bob@example.com" },
      { distinct_id: "carol", none: 1, email: null },
    ]);
    expect(await countWhere("person.properties.email = 'mallory@example.com'")).toEqual([{ c: 0 }]);
    expect(await countWhere("person.properties.email = 'mallory@example.com'", {}, LOOKALIKE)).toEqual([{ c: 1 }]);
    expect(
      await run(
        "select count() as c from events e join persons p on e.person_id = p.id where p.properties.plan = 'enterprise'",
      ),
    ).toEqual([{ c: 0 }]);
  });

  it("confines every table the SQL reads to the project parameter", async () => {
    for (const text of [
      "select count() from events",
      "select person.properties.email from events",
      "select p.id from persons p join events e on e.person_id = p.id",
      "with x as (select distinct_id from events) select * from x where distinct_id in (select distinct_id from events)",
    ]) {
      const { sql } = compile(text);
      const reads = sql.match(/\bFROM (events|person|person_distinct_id_overrides) AS/g) ?? [];
      const confined = sql.match(/\.team_id = \{team_id:Int64\}/g) ?? [];
      expect(reads.length, text).toBeGreaterThan(0);
      expect(confined.length, text).toBe(reads.length);
    }
  });
});

describe("merges through the overrides table", () => {
  const MERGED = 104;

  it("reads a merged distinct id's events as the person it was merged into, without rewriting them", async () => {
    const [ann, ben] = await seedClickHouse(db.client, MERGED, {
      persons: [
        { distinctIds: ["a"], properties: { name: "Ann" } },
        { distinctIds: ["b"], properties: { name: "Ben" } },
      ],
      events: [
        { event: "$pageview", distinctId: "a", timestamp: "2026-02-01T10:00:00.000Z" },
        { event: "$pageview", distinctId: "b", timestamp: "2026-02-01T11:00:00.000Z" },
      ],
    });
    const people = "select distinct_id, person_id, person.properties.name as name from events order by timestamp";
    expect(await run(people, {}, MERGED)).toEqual([
      { distinct_id: "a", person_id: ann, name: "Ann" },
      { distinct_id: "b", person_id: ben, name: "Ben" },
    ]);

    await mergeInClickHouse(db.client, MERGED, { from: ben, into: ann, distinctIds: ["b"], version: 1 });
    expect(await run(people, {}, MERGED)).toEqual([
      { distinct_id: "a", person_id: ann, name: "Ann" },
      { distinct_id: "b", person_id: ann, name: "Ann" },
    ]);
    expect(await run("select count() as c, uniq(person_id) as people from events", {}, MERGED)).toEqual([
      { c: 2, people: 1 },
    ]);
    expect(await run("select properties.name as name from persons", {}, MERGED)).toEqual([{ name: "Ann" }]);
    // The event row still carries the person stored at ingestion.
    const stored = await db.client.query({
      query: "SELECT toString(person_id) AS p FROM events WHERE team_id = {t:Int64} AND distinct_id = 'b'",
      query_params: { t: MERGED },
      format: "JSONEachRow",
    });
    expect(await stored.json()).toEqual([{ p: ben }]);

    // An override deleted at a later version no longer applies.
    await insert(db.client, "person_distinct_id_overrides", [
      { team_id: MERGED, distinct_id: "b", person_id: ann, is_deleted: 1, version: 2 },
    ]);
    expect(await run("select distinct_id, person_id from events order by timestamp", {}, MERGED)).toEqual([
      { distinct_id: "a", person_id: ann },
      { distinct_id: "b", person_id: ben },
    ]);
  });
});

describe("variables", () => {
  it("binds each variable as a query parameter of its type", async () => {
    const compiled = compile("select {variables.a} as a, {variables.b} as b, {variables.a} as again", {
      a: "x",
      b: 2,
    });
    expect(compiled.variables).toEqual(["a", "b"]);
    expect(compiled.variableParams).toEqual({ a: "Nullable(String)", b: "Nullable(Float64)" });
    expect(compiled.sql).toContain("{var_a:Nullable(String)}");
    expect(compiled.sql).not.toContain("variables");
    expect(await run("select {variables.a} as a, {variables.b} as b", { a: 'it\'s \\ a "value"', b: 2.5 })).toEqual([
      { a: 'it\'s \\ a "value"', b: 2.5 },
    ]);
  });

  it("compares numbers, dates, booleans, lists and NULL as D1 does", async () => {
    expect(await countWhere("properties.amount > {variables.min}", { min: 5 })).toEqual([{ c: 1 }]);
    const numeric = compileHogQLForClickHouse(
      "select count() as c from events where properties.amount > {variables.min}",
      {
        parser,
        variableTypes: { min: "Number" },
      },
    );
    const fromText = await runHogQLOnClickHouse(db.client, numeric, {
      teamId: TEAM,
      timezone: "UTC",
      limit: 10,
      values: { min: "4" },
    });
    expect(fromText.results).toEqual([[2]]);
    await expect(
      runHogQLOnClickHouse(db.client, numeric, { teamId: TEAM, timezone: "UTC", limit: 10, values: { min: "many" } }),
    ).rejects.toThrow("Variable min must be a number");
    const dated = compileHogQLForClickHouse("select count() as c from events where timestamp >= {variables.since}", {
      parser,
      variableTypes: { since: "Date" },
    });
    const since = await runHogQLOnClickHouse(db.client, dated, {
      teamId: TEAM,
      timezone: "UTC",
      limit: 10,
      values: { since: "2026-01-06" },
    });
    expect(since.results).toEqual([[3]]);
    expect(await run("select {variables.flag} as f", { flag: true })).toEqual([{ f: 1 }]);
    expect(await countWhere("distinct_id in {variables.ids}", { ids: ["alice", "bob"] })).toEqual([{ c: 3 }]);
    expect(await countWhere("distinct_id not in {variables.ids}", { ids: ["alice", "bob"] })).toEqual([{ c: 2 }]);
    // A single value compared with IN is a one-element list, as on D1.
    expect(await countWhere("distinct_id in {variables.ids}", { ids: "bob" })).toEqual([{ c: 2 }]);
    // NULL equals NULL in HogQL: the events without a browser.
    expect(await countWhere("properties.$browser = {variables.browser}", { browser: null })).toEqual([{ c: 2 }]);
  });

  it("refuses variables it cannot bind", async () => {
    expect(refused("select {variables.`a-b`}")).toContain("plain identifier");
    expect(refused("select {variables.x} from events where distinct_id in {variables.x}")).toContain(
      "used as a single value",
    );
    expect(refused("select {variables.ids}", { ids: "List" })).toContain("is a List");
  });
});

describe("literals and names", () => {
  it("escapes quotes and backslashes so a literal or an alias never ends early", async () => {
    // HogQL's 'x\\' is x and one backslash; ClickHouse would read an unescaped \' as a quote inside the literal.
    expect(await run("select 'x\\\\' as s, 'it''s' as t, 'a\\'b' as u, 1 as `we\"ird\\\\name`")).toEqual([
      { s: "x\\", t: "it's", u: "a'b", 'we"ird\\name': 1 },
    ]);
  });
});

describe("the settings every run sends", () => {
  it("applies readonly together with the other settings in one request", async () => {
    const rs = await db.client.query({
      query:
        "SELECT getSetting('readonly') AS readonly, getSetting('max_execution_time') AS t, getSetting('join_use_nulls') AS nulls, getSetting('max_result_rows') AS rows",
      format: "JSONEachRow",
      clickhouse_settings: HOGQL_SETTINGS,
    });
    expect(await rs.json()).toEqual([{ readonly: 1, t: 30, nulls: true, rows: 50000 }]);
  });

  it("refuses writes, and any change of settings from within the query", async () => {
    const error = async (call: Promise<unknown>) => {
      const e = await call.then(
        () => new Error("expected the call to fail"),
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(ClickHouseError);
      return e as ClickHouseError;
    };
    const write = await error(
      db.client.command({
        query: `INSERT INTO events (uuid, team_id, event, distinct_id, properties, timestamp, created_at) VALUES (generateUUIDv4(), ${TEAM}, 'x', 'x', '{}', now(), now())`,
        clickhouse_settings: HOGQL_SETTINGS,
      }),
    );
    expect(write).toMatchObject({ code: "164", type: "READONLY" });
    const setting = await error(
      db.client.query({ query: "SELECT 1 SETTINGS max_execution_time = 1000", clickhouse_settings: HOGQL_SETTINGS }),
    );
    expect(setting).toMatchObject({ code: "164", type: "READONLY" });
    expect(await run("select count() as c from events")).toEqual([{ c: 5 }]);
  });

  it("throws past max_result_rows rather than cutting the result short", async () => {
    const compiled = compile("select distinct_id from events");
    const error = await runHogQLOnClickHouse(
      db.client,
      compiled,
      { teamId: TEAM, timezone: "UTC", limit: 100, values: {} },
      { ...HOGQL_SETTINGS, max_result_rows: "2" },
    ).then(
      () => new Error("expected the run to fail"),
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: "396", type: "TOO_MANY_ROWS_OR_BYTES" });
  });
});

describe("results in D1's shapes", () => {
  it("answers times, dates, booleans, numbers, uuids, arrays, tuples and properties as D1 does", async () => {
    const { columns, types, results } = await runHogQLOnClickHouse(
      db.client,
      compile(
        "select now() as t, today() as d, 1 = 1 as b, toBool('true') as tb, [1, 2] as arr, tuple(1, 'a') as tup, properties.nested as obj, properties.amount as amount, properties.$browser as browser, uuid, person_id, properties from events order by timestamp limit 1",
      ),
      { teamId: TEAM, timezone: "UTC", limit: 1, values: {} },
    );
    expect(columns).toEqual([
      "t",
      "d",
      "b",
      "tb",
      "arr",
      "tup",
      "obj",
      "amount",
      "browser",
      "uuid",
      "person_id",
      "properties",
    ]);
    const [row] = results;
    const byName = Object.fromEntries(columns.map((c, i) => [c, row[i]]));
    expect(byName.t).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(byName.d).toMatch(/^\d{4}-\d\d-\d\d$/);
    expect(byName).toMatchObject({
      b: 1,
      tb: 1,
      arr: "[1,2]",
      tup: '[1,"a"]',
      obj: '{"a":{"b":7}}',
      amount: 5,
      browser: "Chrome",
    });
    expect(byName.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(byName.person_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(String(byName.properties))).toEqual(PROJECT_DATA.events![0].properties);
    // ClickHouse's own types, as PostHog reports them; a property column's from its values.
    expect(Object.fromEntries(types)).toMatchObject({
      t: "DateTime64(6, 'UTC')",
      d: "Date",
      b: "UInt8",
      amount: "Int64",
      browser: "String",
      uuid: "UUID",
    });
  });
});

/**
 * One call of every function of the ClickHouse catalog, with its value on TEAM's first event
 * (2026-01-05T10:15Z by alice: $browser Chrome, amount 5, arr [10, 20]) in UTC: every mapping runs on the
 * engine and answers what HogQL means. A function added to the catalog needs a line here.
 */
const FUNCTION_SAMPLES: Record<string, [string, unknown]> = {
  now: ["now() > timestamp", 1],
  today: ["today() > toDate(timestamp)", 1],
  yesterday: ["yesterday() = today() - interval 1 day", 1],
  todate: ["toDate(timestamp)", "2026-01-05"],
  todatetime: ["toDateTime('2026-01-05 10:00:00')", "2026-01-05T10:00:00.000Z"],
  totimezone: ["toHour(toTimeZone(timestamp, 'Asia/Tokyo'))", 19],
  tostartofminute: ["toStartOfMinute(timestamp)", "2026-01-05T10:15:00.000Z"],
  tostartofhour: ["toStartOfHour(timestamp)", "2026-01-05T10:00:00.000Z"],
  tostartofday: ["toStartOfDay(timestamp)", "2026-01-05T00:00:00.000Z"],
  tostartofweek: ["toStartOfWeek(timestamp, 1)", "2026-01-05T00:00:00.000Z"],
  tostartofinterval: ["toStartOfInterval(timestamp, interval 1 week)", "2026-01-05T00:00:00.000Z"],
  tomonday: ["toMonday(timestamp)", "2026-01-05"],
  tostartofmonth: ["toStartOfMonth(timestamp)", "2026-01-01T00:00:00.000Z"],
  tostartofquarter: ["toStartOfQuarter(timestamp)", "2026-01-01T00:00:00.000Z"],
  tostartofyear: ["toStartOfYear(timestamp)", "2026-01-01T00:00:00.000Z"],
  toyear: ["toYear(timestamp)", 2026],
  tomonth: ["toMonth(timestamp)", 1],
  todayofmonth: ["toDayOfMonth(timestamp)", 5],
  todayofyear: ["toDayOfYear(timestamp)", 5],
  tohour: ["toHour(timestamp)", 10],
  tominute: ["toMinute(timestamp)", 15],
  tosecond: ["toSecond(timestamp)", 0],
  todayofweek: ["toDayOfWeek(timestamp)", 1],
  tounixtimestamp: ["toUnixTimestamp(timestamp)", 1767608100],
  formatdatetime: ["formatDateTime(timestamp, '%Y/%m/%d %H:%i')", "2026/01/05 10:15"],
  datediff: ["dateDiff('minute', timestamp, '2026-01-05 11:00:00')", 45],
  tointervalsecond: ["timestamp + toIntervalSecond(30)", "2026-01-05T10:15:30.000Z"],
  tointervalminute: ["timestamp - interval 15 minute", "2026-01-05T10:00:00.000Z"],
  tointervalhour: ["timestamp + interval 2 hour", "2026-01-05T12:15:00.000Z"],
  tointervalday: ["toDate(timestamp) + interval 1 day", "2026-01-06"],
  tointervalweek: ["toDate(timestamp) - interval 1 week", "2025-12-29"],
  tointervalmonth: ["toDate(timestamp) + interval 2 month", "2026-03-05"],
  tointervalquarter: ["toDate(timestamp) + interval 1 quarter", "2026-04-05"],
  tointervalyear: ["toDate(timestamp) - interval 1 year", "2025-01-05"],
  if: ["if(properties.amount > 4, properties.amount, 0)", 5],
  multiif: ["multiIf(properties.amount > 9, 'big', properties.amount > 4, 'mid', 'small')", "mid"],
  _casewithexpression: ["case properties.$browser when 'Chrome' then 'c' when 'Firefox' then 'f' end", "c"],
  coalesce: ["coalesce(properties.missing, properties.amount, 0)", 5],
  ifnull: ["ifNull(properties.missing, 'none')", "none"],
  nullif: ["nullIf(properties.$browser, 'Chrome')", null],
  isnull: ["isNull(properties.missing)", 1],
  isnotnull: ["isNotNull(properties.amount)", 1],
  not: ["not(properties.amount > 9)", 1],
  and: ["and(properties.amount > 1, event = '$pageview')", 1],
  or: ["or(properties.amount > 9, event = 'signup')", 0],
  tostring: ["toString(properties.amount)", "5"],
  toint: ["toInt(properties.$browser)", null],
  tointornull: ["toIntOrNull('12')", 12],
  tofloat: ["toFloat(properties.amount) / 2", 2.5],
  tofloatornull: ["toFloatOrNull('x')", null],
  tobool: ["toBool('false')", 0],
  jsonextractstring: ["JSONExtractString(properties, '$browser')", "Chrome"],
  jsonextractint: ["JSONExtractInt(properties, 'nested', 'a', 'b')", 7],
  jsonextractfloat: ["JSONExtractFloat(properties, 'amount')", 5],
  jsonextractraw: ["JSONExtractRaw(properties, 'arr')", "[10,20]"],
  jsonhas: ["JSONHas(properties, 'nested', 'a')", 1],
  jsonlength: ["JSONLength(properties, 'arr')", 2],
  lower: ["lower(properties.$browser)", "chrome"],
  upper: ["upper(event)", "$PAGEVIEW"],
  lowerutf8: ["lowerUTF8('ÉTÉ')", "été"],
  upperutf8: ["upperUTF8('été')", "ÉTÉ"],
  length: ["length(properties.$browser)", 6],
  concat: ["concat(properties.$browser, '/', properties.amount, properties.missing)", "Chrome/5"],
  substring: ["substring(properties.$browser, 2, 3)", "hro"],
  replaceall: ["replaceAll(distinct_id, 'l', 'L')", "aLice"],
  replace: ["replace(distinct_id, 'a', 'A')", "Alice"],
  replaceone: ["replaceOne('aaa', 'a', 'b')", "baa"],
  trim: ["trim('  x  ')", "x"],
  trimleft: ["trimLeft('  x  ')", "x  "],
  trimright: ["trimRight('  x  ')", "  x"],
  position: ["position(distinct_id, 'ice')", 3],
  startswith: ["startsWith(properties.$browser, 'Ch')", 1],
  endswith: ["endsWith(event, 'view')", 1],
  empty: ["empty(properties.missing)", 1],
  notempty: ["notEmpty(properties.arr)", 1],
  abs: ["abs(0 - properties.amount)", 5],
  round: ["round(properties.amount / 3, 2)", 1.67],
  floor: ["floor(properties.amount / 2)", 2],
  ceil: ["ceil(properties.amount / 2)", 3],
  sqrt: ["sqrt(properties.amount * 5)", 5],
  pow: ["pow(properties.amount, 2)", 25],
  power: ["power(2, 3)", 8],
  exp: ["round(exp(0))", 1],
  log: ["round(log(exp(2)))", 2],
  log10: ["log10(1000)", 3],
  intdiv: ["intDiv(properties.amount, 2)", 2],
  greatest: ["greatest(properties.amount, 3)", 5],
  least: ["least(properties.amount, 3)", 3],
  tuple: ["tuple(properties.amount, event)", '["5","$pageview"]'],
  has: ["has(properties.arr, 20)", 1],
  indexof: ["indexOf(['a', 'b'], 'b')", 2],
  hasany: ["hasAny(['a', 'b'], ['b', 'c'])", 1],
  hasall: ["hasAll(['a', 'b'], ['b', 'c'])", 0],
  arrayconcat: ["arrayConcat([1], [2, 3])", "[1,2,3]"],
  arrayslice: ["arraySlice([1, 2, 3], 2, 1)", "[2]"],
  arrayreverse: ["arrayReverse(properties.arr)", '["20","10"]'],
  arraysort: ["arraySort([3, 1, 2])", "[1,2,3]"],
  arraydistinct: ["arrayDistinct([1, 1, 2])", "[1,2]"],
  arrayuniq: ["arrayUniq([1, 1, 2])", 2],
  arraystringconcat: ["arrayStringConcat(properties.arr, '+')", "10+20"],
  splitbychar: ["splitByChar('-', 'a-b')", '["a","b"]'],
  splitbystring: ["splitByString('::', 'a::b')", '["a","b"]'],
  match: ["match(properties.$browser, '^C.*e$')", 1],
  extract: ["extract(distinct_id, '^(a..)')", "ali"],
  extractall: ["extractAll('a1b22', '[0-9]+')", '["1","22"]'],
  replaceregexpall: ["replaceRegexpAll(distinct_id, '[aeiou]', '_')", "_l_c_"],
  replaceregexpone: ["replaceRegexpOne(distinct_id, '[aeiou]', '_')", "_lice"],
};

/** Each aggregate (and its -If form) over TEAM's $pageview events: amounts 5 and 7 and one without. */
const AGGREGATE_SAMPLES: Record<string, [string, unknown]> = {
  count: ["count(properties.amount)", 2],
  uniq: ["uniq(properties.$browser)", 2],
  uniqexact: ["uniqExactIf(properties.$browser, distinct_id != 'bob')", 2],
  sum: ["sum(properties.amount)", 12],
  avg: ["avgIf(properties.amount, properties.amount > 6)", 7],
  min: ["min(properties.amount)", 5],
  max: ["max(properties.$browser)", "Firefox"],
  any: ["anyIf(properties.amount, properties.amount > 6)", 7],
  grouparray: ["arraySort(groupArray(distinct_id))", '["alice","alice-2","bob"]'],
  groupuniqarray: ["arraySort(groupUniqArray(properties.$browser))", '["Chrome","Firefox"]'],
  median: ["median(properties.amount)", 6],
  argmin: ["argMin(distinct_id, properties.amount)", "alice"],
  argmax: ["argMax(distinct_id, timestamp)", "bob"],
};

describe("the ClickHouse function catalog", () => {
  it("has a sample for every function and aggregate", async () => {
    const { CLICKHOUSE_FUNCTIONS } = await import("../../src/hogql/clickhouse/functions");
    const { CLICKHOUSE_AGGREGATES } = await import("../../src/hogql/clickhouse/aggregates");
    expect(Object.keys(FUNCTION_SAMPLES).sort()).toEqual(Object.keys(CLICKHOUSE_FUNCTIONS).sort());
    expect(Object.keys(AGGREGATE_SAMPLES).sort()).toEqual(Object.keys(CLICKHOUSE_AGGREGATES).sort());
  });

  for (const [name, [expression, value]] of Object.entries(FUNCTION_SAMPLES)) {
    it(`${name}: ${expression}`, async () => {
      expect(await run(`select ${expression} as v from events order by timestamp limit 1`)).toEqual([{ v: value }]);
    });
  }

  for (const [name, [expression, value]] of Object.entries(AGGREGATE_SAMPLES)) {
    it(`${name}: ${expression}`, async () => {
      expect(await run(`select ${expression} as v from events where event = '$pageview'`)).toEqual([{ v: value }]);
    });
  }
});

describe("properties of a LEFT JOIN's missing side", () => {
  it("read as missing in every form (ClickHouse's Dynamic and Array cannot be NULL)", async () => {
    expect(
      await run(
        "select distinct_id, person.properties.email as email, person.properties.email = 'x' as eq, person.properties.n > 1 as gt, has(person.properties.tags, 'a') as tagged from events where distinct_id = 'carol'",
      ),
    ).toEqual([{ distinct_id: "carol", email: null, eq: 0, gt: 0, tagged: 0 }]);
  });
});
