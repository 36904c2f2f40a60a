/**
 * The HogQL construct tests, shared by both engines: test/hogql/compile.test.ts runs them on D1 and
 * test/clickhouse/hogql.test.ts on ClickHouse, each after seeding PROJECT_DATA and OTHER_DATA into
 * its own store, and both expect the same rows. Where ClickHouse answers otherwise by design, the
 * case says so (`clickhouse`, with why); docs/compatibility.md lists the same differences.
 */
import type { SeedData } from "../seed-data";

export type Row = Record<string, unknown>;

export interface QueryCase {
  query: string;
  variables?: Record<string, unknown>;
  /** Run as the other project (OTHER_DATA). */
  other?: boolean;
  /** The rows, in order; or, with `columns`, only the result's column names are compared. */
  rows?: Row[];
  columns?: string[];
  /** ClickHouse's rows where they differ by design, and why. */
  clickhouse?: { rows: Row[]; why: string };
  /** Why ClickHouse returns these rows in no defined order (they are compared sorted there). */
  unordered?: string;
}

export interface Refusal {
  query: string;
  /** What the refusal says (a substring or a pattern). */
  message: string | RegExp;
  /** On ClickHouse: another message, or `lifted` (ClickHouse compiles it) with why. */
  clickhouse?: { message: string | RegExp } | { lifted: string };
}

export interface CaseGroup {
  name: string;
  cases: QueryCase[];
  refusals?: Refusal[];
}

export const PROJECT_DATA: SeedData = {
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
};

export const OTHER_DATA: SeedData = {
  events: [
    {
      event: "$pageview",
      distinctId: "mallory",
      timestamp: "2026-01-05T10:00:00.000Z",
      properties: { $browser: "Chrome" },
    },
  ],
};

/** How many of the project's events `condition` keeps: `select count() as c from events where …`. */
const countWhere = (condition: string, c: number, variables?: Record<string, unknown>): QueryCase => ({
  query: `select count() as c from events where ${condition}`,
  rows: [{ c }],
  ...(variables ? { variables } : {}),
});

export const CASE_GROUPS: CaseGroup[] = [
  {
    name: "selects, filters and aliases; never sees another project",
    cases: [
      {
        query: "select event, distinct_id as who from events where event = '$pageview' order by timestamp",
        rows: [
          { event: "$pageview", who: "alice" },
          { event: "$pageview", who: "alice-2" },
          { event: "$pageview", who: "bob" },
        ],
      },
      { query: "select count() from events", rows: [{ "count()": 5 }] },
      { query: "select count() from events", other: true, rows: [{ "count()": 1 }] },
    ],
  },
  {
    name: "reads properties by dot, bracket, backticks, nested paths and 1-based indexes",
    cases: [
      {
        query:
          "select properties.$browser as b, properties['$feature/x'] as f, properties.`weird key` as w, properties.nested.a.b as n, properties.arr.2 as second from events order by timestamp limit 3",
        rows: [
          { b: "Chrome", f: "on", w: null, n: 7, second: 20 },
          { b: "Firefox", f: null, w: null, n: null, second: null },
          { b: "Chrome", f: null, w: "w", n: null, second: null },
        ],
      },
    ],
  },
  {
    name: "joins persons through distinct ids",
    cases: [
      {
        query:
          "select distinct_id, person.properties.email as email, person.properties.plan as plan from events where event = '$pageview' order by timestamp",
        rows: [
          { distinct_id: "alice", email: "alice@example.com", plan: "pro" },
          { distinct_id: "alice-2", email: "alice@example.com", plan: "pro" },
          { distinct_id: "bob", email: "bob@example.com", plan: null },
        ],
      },
      { query: "select uniq(person_id) as people from events where person_id is not null", rows: [{ people: 2 }] },
      {
        query:
          "select p.properties.email as email, count() as c from events e join persons p on e.person_id = p.id group by email order by email",
        rows: [
          { email: "alice@example.com", c: 2 },
          { email: "bob@example.com", c: 2 },
        ],
      },
    ],
  },
  {
    name: "compares null-safely",
    cases: [
      countWhere("properties.$browser != 'Chrome'", 3),
      countWhere("properties.$browser = 'Chrome'", 2),
      countWhere("properties.$browser = null", 2),
      countWhere("not (properties.amount > 5)", 4),
      countWhere("properties.$browser not in ('Chrome')", 3),
    ],
  },
  {
    name: "supports operators: LIKE is case-sensitive, ILIKE is not, IN, BETWEEN, arithmetic",
    cases: [
      countWhere("properties.$browser like 'chr%'", 0),
      countWhere("properties.$browser ilike 'chr%'", 2),
      countWhere("event in ('signup') and timestamp between '2026-01-01' and '2026-01-10'", 1),
      { query: "select 7 / 2 as d, 7 % 2 as m, 2 + 3 * 4 as e", rows: [{ d: 3.5, m: 1, e: 14 }] },
    ],
  },
  {
    name: "buckets dates and does time arithmetic",
    cases: [
      {
        query:
          "select toStartOfDay(timestamp) as day, toStartOfHour(timestamp) as hour, toStartOfWeek(timestamp) as week, toStartOfMonth(timestamp) as month, toDate(timestamp) as date from events order by timestamp limit 1",
        rows: [
          {
            day: "2026-01-05T00:00:00.000Z",
            hour: "2026-01-05T10:00:00.000Z",
            week: "2026-01-04T00:00:00.000Z",
            month: "2026-01-01T00:00:00.000Z",
            date: "2026-01-05",
          },
        ],
      },
      {
        query: "select toDate(timestamp) as d, count() as c from events group by d order by d",
        rows: [
          { d: "2026-01-05", c: 2 },
          { d: "2026-01-06", c: 1 },
          { d: "2026-01-07", c: 1 },
          { d: "2026-01-12", c: 1 },
        ],
      },
      countWhere("timestamp >= toDateTime('2026-01-12 00:00:00') - interval 5 day", 2),
      countWhere("timestamp > now() - interval 7 day", 0),
      {
        query: "select toDateTime('2026-01-31 12:00:00') + interval 1 month as t, today() = toDate(now()) as same",
        rows: [{ t: "2026-03-03T12:00:00.000Z", same: 1 }],
        clickhouse: {
          rows: [{ t: "2026-02-28T12:00:00.000Z", same: 1 }],
          why: "ClickHouse adds a month as the calendar does (31 January + 1 month is 28 February); SQLite overflows into March",
        },
      },
    ],
  },
  {
    name: "compares timestamps with datetime literals in time order",
    cases: [
      countWhere("timestamp >= '2026-01-05 10:30:00'", 4),
      countWhere("timestamp < '2026-01-05 11:00'", 1),
      countWhere("timestamp between '2026-01-05 10:00:00' and '2026-01-05 11:00:00.000'", 2),
      countWhere("'2026-01-07 23:59:59.999' = timestamp", 1),
      countWhere("toStartOfDay(timestamp) = '2026-01-05 00:00:00'", 2),
    ],
  },
  {
    name: "reads persons",
    cases: [
      {
        query: "select properties.email as email, is_identified from persons order by email",
        rows: [
          { email: "alice@example.com", is_identified: 1 },
          { email: "bob@example.com", is_identified: 0 },
        ],
      },
      { query: "select count() as c from persons", other: true, rows: [{ c: 0 }] },
    ],
  },
  {
    name: "buckets by toStartOfInterval and computes with math functions",
    cases: [
      {
        query:
          "select toStartOfInterval(timestamp, interval 15 minute) as q, toStartOfInterval(timestamp, interval 2 hour) as h from events order by timestamp limit 1",
        rows: [{ q: "2026-01-05T10:15:00.000Z", h: "2026-01-05T10:00:00.000Z" }],
      },
      {
        query: "select floor(2.7) as f, ceil(2.1) as c, round(sqrt(16)) as s, pow(2, 10) as p, intDiv(7, 2) as d",
        rows: [{ f: 2, c: 3, s: 4, p: 1024, d: 3 }],
      },
    ],
    refusals: [
      {
        query: "select toStartOfInterval(timestamp, interval 1 month) from events",
        message: "toStartOfInterval",
        clickhouse: { lifted: "ClickHouse buckets by any interval, months and years included" },
      },
    ],
  },
  {
    name: "accepts a UTC time zone argument and refuses others (bucketing is in UTC, never silently)",
    cases: [
      {
        query:
          "select toStartOfDay(timestamp, 'UTC') as d, toDateTime(timestamp, 'UTC') as t from events order by timestamp limit 1",
        rows: [{ d: "2026-01-05T00:00:00.000Z", t: "2026-01-05T10:15:00.000Z" }],
      },
    ],
    refusals: [
      {
        query: "select toStartOfDay(timestamp, 'Europe/Paris') from events",
        message: /time zone .*UTC/,
        clickhouse: { lifted: "ClickHouse has time zones: the day starts at midnight in Paris" },
      },
      {
        query: "select toDateTime(timestamp, 'America/New_York') from events",
        message: /time zone .*UTC/,
        clickhouse: { lifted: "ClickHouse has time zones" },
      },
      {
        query: "select toStartOfDay(timestamp, properties.tz) from events",
        message: /time zone .*UTC/,
        clickhouse: { message: /time zone must be a string literal/ },
      },
    ],
  },
  {
    name: "computes date differences and parts",
    cases: [
      {
        query:
          "select dateDiff('day', '2026-01-05T23:00:00Z', '2026-01-06T01:00:00Z') as d, dateDiff('hour', '2026-01-05T10:59:00Z', '2026-01-05T11:01:00Z') as h, dateDiff('month', '2025-12-31', '2026-01-01') as m, toYear(timestamp) as y, toMonth(timestamp) as mo, toHour(timestamp) as hr, toDayOfWeek(timestamp) as dow from events order by timestamp limit 1",
        rows: [{ d: 1, h: 1, m: 1, y: 2026, mo: 1, hr: 10, dow: 1 }],
      },
    ],
  },
  {
    name: "aggregates with -If combinators, GROUP BY, HAVING, ORDER, LIMIT and OFFSET",
    cases: [
      {
        query:
          "select event, count() as c, uniq(distinct_id) as u, countIf(properties.$browser = 'Chrome') as chrome, sumIf(properties.amount, properties.amount > 5) as big, avg(properties.amount) as a, min(timestamp) as first from events group by event having c > 1 order by c desc, event",
        rows: [
          { event: "$pageview", c: 3, u: 3, chrome: 2, big: 7, a: 6, first: "2026-01-05T10:15:00.000Z" },
          { event: "signup", c: 2, u: 2, chrome: 0, big: null, a: null, first: "2026-01-07T23:59:59.999Z" },
        ],
      },
      {
        query: "select distinct_id from events order by timestamp limit 2 offset 1",
        rows: [{ distinct_id: "alice-2" }, { distinct_id: "bob" }],
      },
      { query: "select count(distinct event) as e, count(*) as n from events", rows: [{ e: 2, n: 5 }] },
      {
        query:
          "select count() filter (where event = 'signup') as s, countIf(event = 'signup') filter (where distinct_id = 'bob') as b, sum(properties.amount) filter (where properties.amount > 5) as big from events",
        rows: [{ s: 2, b: 1, big: 7 }],
      },
    ],
  },
  {
    name: "evaluates conditionals, conversions and string functions",
    cases: [
      {
        query:
          "select if(event = 'signup', 'yes', 'no') as s, multiIf(properties.amount > 6, 'big', properties.amount > 0, 'small', 'none') as size, coalesce(properties.plan, 'unknown') as plan, ifNull(properties.$browser, '-') as b, case when event = 'signup' then 1 else 0 end as flag, toString(properties.amount) as amt, toInt('42') + 1 as n, toFloat('1.5') as f, lower(upper('Ab')) as l, concat(event, '-', properties.missing, '!') as c, length(event) as len, substring(event, 2, 3) as sub, replaceAll(event, 'p', 'P') as r, trim('  x ') as t from events order by timestamp limit 2",
        rows: [
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
        ],
      },
    ],
  },
  {
    name: "converts without failing, truncating to integers as SQL's CAST does",
    cases: [
      {
        query:
          "select toInt(2.7) as a, toInt('7.5') as b, toInt('-3') as c, toFloat('2') as d, toInt(properties.amount) as e, properties.amount::Int64 + 1 as f from events order by timestamp limit 1",
        rows: [{ a: 2, b: 7, c: -3, d: 2, e: 5, f: 6 }],
      },
    ],
  },
  {
    name: "supports DISTINCT, subqueries, IN (subquery), tuples, CTEs, joins and UNION",
    cases: [
      {
        query: "select distinct event from events order by event",
        rows: [{ event: "$pageview" }, { event: "signup" }],
      },
      countWhere("distinct_id in (select distinct_id from events where event = 'signup')", 3),
      countWhere("(distinct_id, event) in (select distinct_id, event from events where event = 'signup')", 2),
      {
        query:
          "with s as (select distinct_id, count() as n from events group by distinct_id) select distinct_id, n from s where n > 1 order by distinct_id",
        rows: [{ distinct_id: "bob", n: 2 }],
      },
      {
        query:
          "select t.event, t.c from (select event, count() as c from events group by event) as t order by t.c desc limit 1",
        rows: [{ event: "$pageview", c: 3 }],
      },
      {
        query:
          "select e.distinct_id as d, s.n as n from events e left join (select distinct_id, count() as n from events where event = 'signup' group by distinct_id) s on e.distinct_id = s.distinct_id where e.event = '$pageview' order by e.timestamp",
        rows: [
          { d: "alice", n: null },
          { d: "alice-2", n: null },
          { d: "bob", n: 1 },
        ],
      },
      {
        query: "select 1 as x union all select 2 as x",
        rows: [{ x: 1 }, { x: 2 }],
        unordered: "ClickHouse runs the parts of a UNION ALL in parallel: without ORDER BY the order is not defined",
      },
      // a LEFT JOIN's missing side is NULL: != is true there, as HogQL's null-safe comparison says
      {
        query:
          "select count() as c from events e left join (select distinct_id from events where event = 'signup') s on e.distinct_id = s.distinct_id where s.distinct_id != 'bob'",
        rows: [{ c: 3 }],
      },
      { query: "select (select count() from events) as total", rows: [{ total: 5 }] },
    ],
  },
  {
    name: "keeps property types through subqueries, DISTINCT, GROUP BY and ORDER BY",
    cases: [
      {
        query: "select distinct properties.amount as a from events where a is not null order by a desc",
        rows: [{ a: 7 }, { a: 5 }],
      },
      {
        query:
          "select t.b as b, count() as c from (select properties.$browser as b from events) t where t.b = 'Chrome' group by t.b",
        rows: [{ b: "Chrome", c: 2 }],
      },
      {
        query: "select * from (select distinct_id, properties.amount as a from events where a > 0) order by a",
        rows: [
          { distinct_id: "alice", a: 5 },
          { distinct_id: "alice-2", a: 7 },
        ],
      },
      {
        query: "select properties.amount as a, count() as c from events group by a order by a",
        rows: [
          { a: null, c: 3 },
          { a: 5, c: 1 },
          { a: 7, c: 1 },
        ],
      },
      {
        query: "select properties.plan as p from events order by p desc",
        rows: [{ p: "free" }, { p: null }, { p: null }, { p: null }, { p: null }],
      },
      countWhere("properties.$browser in (select properties.$browser from events where distinct_id = 'bob')", 2),
    ],
  },
  {
    name: "binds variables as parameters: an injection attempt stays a value",
    cases: [
      countWhere("properties.$browser = {variables.browser}", 2, { browser: "Chrome" }),
      countWhere("properties.$browser = {variables.browser}", 0, { browser: "x' OR 1=1 --" }),
    ],
  },
  {
    name: "selects * as the catalog's columns",
    cases: [
      {
        query: "select * from events order by timestamp limit 1",
        columns: ["uuid", "event", "properties", "timestamp", "distinct_id", "person_id", "created_at"],
      },
    ],
  },
  {
    name: "refuses everything outside the catalog, naming it",
    cases: [],
    refusals: [
      { query: "select * from sqlite_master", message: "sqlite_master" },
      { query: "select * from person_distinct_ids", message: "person_distinct_ids" },
      { query: "select * from projects", message: "projects" },
      { query: "select * from main.events", message: "main.events" },
      { query: "select * from events where 1 in (select 1 from personal_api_keys)", message: "personal_api_keys" },
      { query: "with x as (select * from sqlite_master) select * from x", message: "sqlite_master" },
      { query: "PRAGMA table_info(events)", message: "PRAGMA" },
      { query: "ATTACH DATABASE 'x' AS y", message: "ATTACH" },
      { query: "DELETE FROM events", message: "DELETE" },
      { query: "drop table events", message: "DROP" },
      { query: "select sqlite_version()", message: "sqlite_version" },
      { query: "select load_extension('x')", message: "load_extension" },
      { query: "selet 100", message: "Invalid HogQL query" },
      // ClickHouse's own tables, databases, table functions and statements, refused on both engines
      { query: "select * from system.tables", message: "system.tables" },
      { query: "select name from system.users", message: "system.users" },
      { query: "select * from default.events", message: "default.events" },
      { query: "select * from person_distinct_id_overrides", message: "person_distinct_id_overrides" },
      { query: "select * from person", message: 'Table "person"' },
      { query: "select * from url('http://example.com/x.csv', 'CSV')", message: "Table functions" },
      { query: "select * from remote('other-host', default.events)", message: "Table functions" },
      { query: "select * from file('/etc/passwd')", message: "Table functions" },
      { query: "select * from s3('https://bucket/x')", message: "Table functions" },
      { query: "select * from numbers(10)", message: "Table functions" },
      { query: "select file('/etc/passwd')", message: "Unsupported function: file" },
      { query: "select currentDatabase()", message: "Unsupported function: currentDatabase" },
      { query: "select dictGet('d', 'x', 1)", message: "Unsupported function: dictGet" },
      { query: "select * from events settings max_execution_time = 1000", message: "Invalid HogQL query" },
      { query: "select * from events sample 0.1", message: "SAMPLE" },
      { query: "select * from events final", message: "FINAL" },
      { query: "select event from events order by event with fill", message: "WITH FILL" },
      { query: "select event from events limit 1 by event", message: "LIMIT BY" },
      { query: "INSERT INTO events SELECT * FROM events", message: "INSERT" },
      { query: "ALTER TABLE events DELETE WHERE 1", message: "ALTER" },
      { query: "CREATE TABLE x (a Int8) ENGINE = Memory", message: "CREATE" },
      { query: "TRUNCATE TABLE events", message: "TRUNCATE" },
      { query: "SET readonly = 0", message: "SET" },
      { query: "SYSTEM DROP DNS CACHE", message: "SYSTEM" },
      { query: "KILL QUERY WHERE 1", message: "KILL" },
      { query: "select 1; drop table events", message: "Invalid HogQL query" },
    ],
  },
  {
    name: "keeps a CTE named after a catalog table confined to the project",
    cases: [
      { query: "with events as (select * from events) select count() as c from events", other: true, rows: [{ c: 1 }] },
    ],
  },
];
