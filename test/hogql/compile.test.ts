import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { compileHogQL } from "../../src/hogql/compile";
import { HogQLError } from "../../src/hogql/errors";
import { createProject } from "../helpers";
import { seed } from "../endpoints/fixtures";

let project: number;
let other: number;

/** Compiles and runs a query for `project`, returning rows as objects. */
async function run(text: string, variables: Record<string, unknown> = {}, projectId = project) {
  const compiled = await compileHogQL(text);
  const limit = compiled.limit ?? 100;
  const params = [projectId, ...compiled.variables.map((v) => variables[v] ?? null), limit, compiled.offset];
  const { results } = await env.DB.prepare(compiled.sql)
    .bind(...params)
    .all();
  return results;
}

/** How many of the project's events `condition` keeps, as the rows of `select count() as c from events where …`. */
const countWhere = (condition: string, variables: Record<string, unknown> = {}) =>
  run(`select count() as c from events where ${condition}`, variables);

async function refused(text: string) {
  try {
    await compileHogQL(text);
  } catch (error) {
    expect(error).toBeInstanceOf(HogQLError);
    return (error as Error).message;
  }
  throw new Error(`compiled: ${text}`);
}

beforeAll(async () => {
  project = (await createProject()).id;
  other = (await createProject()).id;
  await seed(project, {
    persons: [
      {
        distinctIds: ["alice", "alice-2"],
        properties: { email: "alice@example.com", plan: "pro" },
        isIdentified: true,
      },
      { distinctIds: ["bob"], properties: { email: "bob@example.com" } },
    ],
    events: [
      {
        event: "$pageview",
        distinctId: "alice",
        timestamp: "2026-01-05T10:15:00.000Z",
        properties: { $browser: "Chrome", "$feature/x": "on", nested: { a: { b: 7 } }, arr: [10, 20], amount: 5 },
      },
      {
        event: "$pageview",
        distinctId: "alice-2",
        timestamp: "2026-01-05T11:00:00.000Z",
        properties: { $browser: "Firefox", amount: 7 },
      },
      {
        event: "$pageview",
        distinctId: "bob",
        timestamp: "2026-01-06T09:00:00.000Z",
        properties: { $browser: "Chrome", "weird key": "w" },
      },
      { event: "signup", distinctId: "bob", timestamp: "2026-01-07T23:59:59.999Z", properties: { plan: "free" } },
      { event: "signup", distinctId: "carol", timestamp: "2026-01-12T00:00:00.000Z", properties: {} },
    ],
  });
  await seed(other, {
    events: [
      {
        event: "$pageview",
        distinctId: "mallory",
        timestamp: "2026-01-05T10:00:00.000Z",
        properties: { $browser: "Chrome" },
      },
    ],
  });
});

describe("HogQL compiled to SQLite", () => {
  it("selects, filters and aliases; never sees another project", async () => {
    expect(
      await run("select event, distinct_id as who from events where event = '$pageview' order by timestamp"),
    ).toEqual([
      { event: "$pageview", who: "alice" },
      { event: "$pageview", who: "alice-2" },
      { event: "$pageview", who: "bob" },
    ]);
    expect(await run("select count() from events")).toEqual([{ "count()": 5 }]);
    expect(await run("select count() from events", {}, other)).toEqual([{ "count()": 1 }]);
  });

  it("reads properties by dot, bracket, backticks, nested paths and 1-based indexes", async () => {
    const rows = await run(
      "select properties.$browser as b, properties['$feature/x'] as f, properties.`weird key` as w, properties.nested.a.b as n, properties.arr.2 as second from events order by timestamp limit 3",
    );
    expect(rows).toEqual([
      { b: "Chrome", f: "on", w: null, n: 7, second: 20 },
      { b: "Firefox", f: null, w: null, n: null, second: null },
      { b: "Chrome", f: null, w: "w", n: null, second: null },
    ]);
  });

  it("joins persons through distinct ids", async () => {
    const rows = await run(
      "select distinct_id, person.properties.email as email, person.properties.plan as plan from events where event = '$pageview' order by timestamp",
    );
    expect(rows).toEqual([
      { distinct_id: "alice", email: "alice@example.com", plan: "pro" },
      { distinct_id: "alice-2", email: "alice@example.com", plan: "pro" },
      { distinct_id: "bob", email: "bob@example.com", plan: null },
    ]);
    expect(await run("select uniq(person_id) as people from events where person_id is not null")).toEqual([
      { people: 2 },
    ]);
    const joined = await run(
      "select p.properties.email as email, count() as c from events e join persons p on e.person_id = p.id group by email order by email",
    );
    expect(joined).toEqual([
      { email: "alice@example.com", c: 2 },
      { email: "bob@example.com", c: 2 },
    ]);
  });

  it("compares null-safely", async () => {
    expect(await countWhere("properties.$browser != 'Chrome'")).toEqual([{ c: 3 }]);
    expect(await countWhere("properties.$browser = 'Chrome'")).toEqual([{ c: 2 }]);
    expect(await countWhere("properties.$browser = null")).toEqual([{ c: 2 }]);
    expect(await countWhere("not (properties.amount > 5)")).toEqual([{ c: 4 }]);
    expect(await countWhere("properties.$browser not in ('Chrome')")).toEqual([{ c: 3 }]);
  });

  it("supports operators: LIKE is case-sensitive, ILIKE is not, IN, BETWEEN, arithmetic", async () => {
    expect(await countWhere("properties.$browser like 'chr%'")).toEqual([{ c: 0 }]);
    expect(await countWhere("properties.$browser ilike 'chr%'")).toEqual([{ c: 2 }]);
    expect(await countWhere("event in ('signup') and timestamp between '2026-01-01' and '2026-01-10'")).toEqual([
      { c: 1 },
    ]);
    expect(await run("select 7 / 2 as d, 7 % 2 as m, 2 + 3 * 4 as e")).toEqual([{ d: 3.5, m: 1, e: 14 }]);
  });

  it("buckets dates and does time arithmetic", async () => {
    const rows = await run(
      "select toStartOfDay(timestamp) as day, toStartOfHour(timestamp) as hour, toStartOfWeek(timestamp) as week, toStartOfMonth(timestamp) as month, toDate(timestamp) as date from events order by timestamp limit 1",
    );
    expect(rows).toEqual([
      {
        day: "2026-01-05T00:00:00.000Z",
        hour: "2026-01-05T10:00:00.000Z",
        week: "2026-01-04T00:00:00.000Z",
        month: "2026-01-01T00:00:00.000Z",
        date: "2026-01-05",
      },
    ]);
    expect(await run("select toDate(timestamp) as d, count() as c from events group by d order by d")).toEqual([
      { d: "2026-01-05", c: 2 },
      { d: "2026-01-06", c: 1 },
      { d: "2026-01-07", c: 1 },
      { d: "2026-01-12", c: 1 },
    ]);
    expect(await countWhere("timestamp >= toDateTime('2026-01-12 00:00:00') - interval 5 day")).toEqual([{ c: 2 }]);
    expect(await countWhere("timestamp > now() - interval 7 day")).toEqual([{ c: 0 }]);
    expect(
      await run("select toDateTime('2026-01-31 12:00:00') + interval 1 month as t, today() = toDate(now()) as same"),
    ).toEqual([{ t: "2026-03-03T12:00:00.000Z", same: 1 }]);
  });

  it("compares timestamps with datetime literals in time order", async () => {
    expect(await countWhere("timestamp >= '2026-01-05 10:30:00'")).toEqual([{ c: 4 }]);
    expect(await countWhere("timestamp < '2026-01-05 11:00'")).toEqual([{ c: 1 }]);
    expect(await countWhere("timestamp between '2026-01-05 10:00:00' and '2026-01-05 11:00:00.000'")).toEqual([
      { c: 2 },
    ]);
    expect(await countWhere("'2026-01-07 23:59:59.999' = timestamp")).toEqual([{ c: 1 }]);
    expect(await countWhere("toStartOfDay(timestamp) = '2026-01-05 00:00:00'")).toEqual([{ c: 2 }]);
  });

  it("reads persons", async () => {
    expect(await run("select properties.email as email, is_identified from persons order by email")).toEqual([
      { email: "alice@example.com", is_identified: 1 },
      { email: "bob@example.com", is_identified: 0 },
    ]);
    expect(await run("select count() as c from persons", {}, other)).toEqual([{ c: 0 }]);
  });

  it("buckets by toStartOfInterval and computes with math functions", async () => {
    expect(
      await run(
        "select toStartOfInterval(timestamp, interval 15 minute) as q, toStartOfInterval(timestamp, interval 2 hour) as h from events order by timestamp limit 1",
      ),
    ).toEqual([{ q: "2026-01-05T10:15:00.000Z", h: "2026-01-05T10:00:00.000Z" }]);
    expect(
      await run("select floor(2.7) as f, ceil(2.1) as c, round(sqrt(16)) as s, pow(2, 10) as p, intDiv(7, 2) as d"),
    ).toEqual([{ f: 2, c: 3, s: 4, p: 1024, d: 3 }]);
    expect(await refused("select toStartOfInterval(timestamp, interval 1 month) from events")).toContain(
      "toStartOfInterval",
    );
  });

  it("accepts a UTC time zone argument and refuses others (bucketing is in UTC, never silently)", async () => {
    expect(
      await run(
        "select toStartOfDay(timestamp, 'UTC') as d, toDateTime(timestamp, 'UTC') as t from events order by timestamp limit 1",
      ),
    ).toEqual([{ d: "2026-01-05T00:00:00.000Z", t: "2026-01-05T10:15:00.000Z" }]);
    for (const call of [
      "toStartOfDay(timestamp, 'Europe/Paris')",
      "toDateTime(timestamp, 'America/New_York')",
      "toStartOfDay(timestamp, properties.tz)",
    ]) {
      expect(await refused(`select ${call} from events`), call).toMatch(/time zone .*UTC/);
    }
  });

  it("computes date differences and parts", async () => {
    const rows = await run(
      "select dateDiff('day', '2026-01-05T23:00:00Z', '2026-01-06T01:00:00Z') as d, dateDiff('hour', '2026-01-05T10:59:00Z', '2026-01-05T11:01:00Z') as h, dateDiff('month', '2025-12-31', '2026-01-01') as m, toYear(timestamp) as y, toMonth(timestamp) as mo, toHour(timestamp) as hr, toDayOfWeek(timestamp) as dow from events order by timestamp limit 1",
    );
    expect(rows).toEqual([{ d: 1, h: 1, m: 1, y: 2026, mo: 1, hr: 10, dow: 1 }]);
  });

  it("aggregates with -If combinators, GROUP BY, HAVING, ORDER, LIMIT and OFFSET", async () => {
    const rows = await run(
      "select event, count() as c, uniq(distinct_id) as u, countIf(properties.$browser = 'Chrome') as chrome, sumIf(properties.amount, properties.amount > 5) as big, avg(properties.amount) as a, min(timestamp) as first from events group by event having c > 1 order by c desc, event",
    );
    expect(rows).toEqual([
      { event: "$pageview", c: 3, u: 3, chrome: 2, big: 7, a: 6, first: "2026-01-05T10:15:00.000Z" },
      { event: "signup", c: 2, u: 2, chrome: 0, big: null, a: null, first: "2026-01-07T23:59:59.999Z" },
    ]);
    expect(await run("select distinct_id from events order by timestamp limit 2 offset 1")).toEqual([
      { distinct_id: "alice-2" },
      { distinct_id: "bob" },
    ]);
    expect(await run("select count(distinct event) as e, count(*) as n from events")).toEqual([{ e: 2, n: 5 }]);
    expect(
      await run(
        "select count() filter (where event = 'signup') as s, countIf(event = 'signup') filter (where distinct_id = 'bob') as b, sum(properties.amount) filter (where properties.amount > 5) as big from events",
      ),
    ).toEqual([{ s: 2, b: 1, big: 7 }]);
  });

  it("evaluates conditionals, conversions and string functions", async () => {
    const rows = await run(
      "select if(event = 'signup', 'yes', 'no') as s, multiIf(properties.amount > 6, 'big', properties.amount > 0, 'small', 'none') as size, coalesce(properties.plan, 'unknown') as plan, ifNull(properties.$browser, '-') as b, case when event = 'signup' then 1 else 0 end as flag, toString(properties.amount) as amt, toInt('42') + 1 as n, toFloat('1.5') as f, lower(upper('Ab')) as l, concat(event, '-', properties.missing, '!') as c, length(event) as len, substring(event, 2, 3) as sub, replaceAll(event, 'p', 'P') as r, trim('  x ') as t from events order by timestamp limit 2",
    );
    expect(rows).toEqual([
      {
        s: "no",
        size: "small",
        plan: "unknown",
        b: "Chrome",
        flag: 0,
        amt: "5",
        n: 43,
        f: 1.5,
        l: "ab",
        c: "$pageview-!",
        len: 9,
        sub: "pag",
        r: "$Pageview",
        t: "x",
      },
      {
        s: "no",
        size: "big",
        plan: "unknown",
        b: "Firefox",
        flag: 0,
        amt: "7",
        n: 43,
        f: 1.5,
        l: "ab",
        c: "$pageview-!",
        len: 9,
        sub: "pag",
        r: "$Pageview",
        t: "x",
      },
    ]);
  });

  it("supports DISTINCT, subqueries, IN (subquery), tuples, CTEs, joins and UNION", async () => {
    expect(await run("select distinct event from events order by event")).toEqual([
      { event: "$pageview" },
      { event: "signup" },
    ]);
    expect(await countWhere("distinct_id in (select distinct_id from events where event = 'signup')")).toEqual([
      { c: 3 },
    ]);
    expect(
      await countWhere("(distinct_id, event) in (select distinct_id, event from events where event = 'signup')"),
    ).toEqual([{ c: 2 }]);
    expect(
      await run(
        "with s as (select distinct_id, count() as n from events group by distinct_id) select distinct_id, n from s where n > 1 order by distinct_id",
      ),
    ).toEqual([{ distinct_id: "bob", n: 2 }]);
    expect(
      await run(
        "select t.event, t.c from (select event, count() as c from events group by event) as t order by t.c desc limit 1",
      ),
    ).toEqual([{ event: "$pageview", c: 3 }]);
    expect(
      await run(
        "select e.distinct_id as d, s.n as n from events e left join (select distinct_id, count() as n from events where event = 'signup' group by distinct_id) s on e.distinct_id = s.distinct_id where e.event = '$pageview' order by e.timestamp",
      ),
    ).toEqual([
      { d: "alice", n: null },
      { d: "alice-2", n: null },
      { d: "bob", n: 1 },
    ]);
    expect(await run("select 1 as x union all select 2 as x")).toEqual([{ x: 1 }, { x: 2 }]);
    // a LEFT JOIN's missing side is NULL: != is true there, as HogQL's null-safe comparison says
    expect(
      await run(
        "select count() as c from events e left join (select distinct_id from events where event = 'signup') s on e.distinct_id = s.distinct_id where s.distinct_id != 'bob'",
      ),
    ).toEqual([{ c: 3 }]);
    expect(await run("select (select count() from events) as total")).toEqual([{ total: 5 }]);
  });

  it("binds variables as parameters: an injection attempt stays a value", async () => {
    expect(
      await countWhere("properties.$browser = {variables.browser}", {
        browser: "Chrome",
      }),
    ).toEqual([{ c: 2 }]);
    expect(
      await countWhere("properties.$browser = {variables.browser}", {
        browser: "x' OR 1=1 --",
      }),
    ).toEqual([{ c: 0 }]);
    const compiled = await compileHogQL("select {variables.a} as a, {variables.b} as b, {variables.a} as again");
    expect(compiled.variables).toEqual(["a", "b"]);
    expect(compiled.sql).not.toContain("variables");
  });

  it("selects * as the catalog's columns", async () => {
    const [row] = await run("select * from events order by timestamp limit 1");
    expect(Object.keys(row)).toEqual([
      "uuid",
      "event",
      "properties",
      "timestamp",
      "distinct_id",
      "person_id",
      "created_at",
    ]);
  });

  it("refuses everything outside the catalog, naming it", async () => {
    expect(await refused("select * from sqlite_master")).toContain("sqlite_master");
    expect(await refused("select * from person_distinct_ids")).toContain("person_distinct_ids");
    expect(await refused("select * from projects")).toContain("projects");
    expect(await refused("select * from main.events")).toContain("main.events");
    expect(await refused("select * from events where 1 in (select 1 from personal_api_keys)")).toContain(
      "personal_api_keys",
    );
    expect(await refused("with x as (select * from sqlite_master) select * from x")).toContain("sqlite_master");
    expect(await refused("PRAGMA table_info(events)")).toContain("PRAGMA");
    expect(await refused("ATTACH DATABASE 'x' AS y")).toContain("ATTACH");
    expect(await refused("DELETE FROM events")).toContain("DELETE");
    expect(await refused("drop table events")).toContain("DROP");
    expect(await refused("select sqlite_version()")).toContain("sqlite_version");
    expect(await refused("select load_extension('x')")).toContain("load_extension");
    expect(await refused("selet 100")).toContain("Invalid HogQL query");
  });

  it("keeps a CTE named after a catalog table confined to the project", async () => {
    expect(await run("with events as (select * from events) select count() as c from events", {}, other)).toEqual([
      { c: 1 },
    ]);
  });
});
