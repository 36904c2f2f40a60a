// The part of ClickHouse's HTTP interface that edgehog relies on, driven only through the real client
// (@clickhouse/client-web): against local-clickhouse (chdb) by default, or the server named by CLICKHOUSE_URL.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClickHouseError, createClient, TupleParam, type ClickHouseClient } from "@clickhouse/client-web";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startLocalClickHouse } from "../../scripts/lib/local-clickhouse.mjs";

const url = inject("clickhouseUrl");
const local = inject("clickhouseLocal");
// A database of this run's own: the suite can run against a shared server, and every request carries `database`.
const database = `edgehog_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;

let client: ClickHouseClient;

beforeAll(async () => {
  const admin = createClient({ url });
  await admin.command({ query: `CREATE DATABASE ${database}` });
  await admin.close();
  client = createClient({ url, database });
});

afterAll(async () => {
  await client?.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  await client?.close();
});

/** The ClickHouseError a call rejects with (failing the test if it resolves or rejects otherwise). */
async function clickhouseError(call: Promise<unknown>): Promise<ClickHouseError> {
  const error = await call.then(
    () => new Error("expected the call to fail"),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ClickHouseError);
  return error as ClickHouseError;
}

const summaryOf = (headers: Record<string, string | string[] | undefined>) =>
  JSON.parse(String(headers["x-clickhouse-summary"])) as Record<string, string>;

// Characters that break naive escaping: quotes, backslashes, control characters, non-ASCII, the TSV NULL marker.
const AWKWARD = `it's a "quote", a back\\slash, a\nnewline, a\ttab, a\rreturn, unicode é 😀 and \\N`;

describe("requests and responses", () => {
  it("answers ping", async () => {
    expect(await client.ping()).toEqual({ success: true });
  });

  it("echoes the query id and reports format, timezone and a summary in the headers", async () => {
    const queryId = `edgehog-${Math.random().toString(36).slice(2)}`;
    const rs = await client.query({ query: "SELECT number FROM numbers(5)", format: "JSONEachRow", query_id: queryId });
    expect(await rs.json()).toHaveLength(5);
    expect(rs.query_id).toBe(queryId);
    expect(rs.response_headers["x-clickhouse-query-id"]).toBe(queryId);
    expect(rs.response_headers["x-clickhouse-format"]).toBe("JSONEachRow");
    expect(rs.response_headers["x-clickhouse-timezone"]).toBeTruthy();
    const summary = summaryOf(rs.response_headers);
    expect(summary).toMatchObject({ result_rows: "5", written_rows: "0" });
    for (const key of [
      "read_rows",
      "read_bytes",
      "written_bytes",
      "total_rows_to_read",
      "result_bytes",
      "elapsed_ns",
    ]) {
      expect(summary[key], key).toMatch(/^\d+$/);
    }
  });

  it("compresses responses when the client asks (enable_http_compression and Accept-Encoding)", async () => {
    const compressed = createClient({ url, database, compression: { response: true } });
    try {
      const rs = await compressed.query({ query: "SELECT number FROM numbers(10000)", format: "JSONCompactEachRow" });
      expect(rs.response_headers["content-encoding"]).toBe("gzip");
      const rows = await rs.json<[number]>();
      expect(rows).toHaveLength(10000);
      expect(rows[9999]).toEqual([9999]);
    } finally {
      await compressed.close();
    }
  });

  it("sends and answers the same whatever the output format", async () => {
    const query = "SELECT number AS n, concat('v', toString(number)) AS s FROM numbers(3)";
    const eachRow = await (await client.query({ query, format: "JSONEachRow" })).json();
    expect(eachRow).toEqual([
      { n: 0, s: "v0" },
      { n: 1, s: "v1" },
      { n: 2, s: "v2" },
    ]);
    const json = await (await client.query({ query, format: "JSON" })).json<{ n: number; s: string }>();
    expect(json.meta).toEqual([
      { name: "n", type: "UInt64" },
      { name: "s", type: "String" },
    ]);
    expect(json.data).toEqual(eachRow);
    expect(json.rows).toBe(3);
    const compact = await (await client.query({ query, format: "JSONCompact" })).json<[number, string]>();
    expect(compact.data).toEqual([
      [0, "v0"],
      [1, "v1"],
      [2, "v2"],
    ]);
    expect(await (await client.query({ query, format: "TabSeparated" })).text()).toBe("0\tv0\n1\tv1\n2\tv2\n");
    expect(await (await client.query({ query: "SELECT 'a\tb' AS s", format: "TabSeparated" })).text()).toBe("a\\tb\n");
    const csv = await client.query({ query: `SELECT 1 AS a, 'x,"y"' AS b`, format: "CSV" });
    expect(await csv.text()).toBe('1,"x,""y"""\n');
    expect(csv.response_headers["content-type"]).toMatch(/^text\/csv/);
  });
});

describe("query parameters", () => {
  it("binds strings with quotes, backslashes, newlines, tabs and unicode", async () => {
    const rs = await client.query({
      query: "SELECT {s:String} AS s, length({s:String}) AS bytes",
      format: "JSONEachRow",
      query_params: { s: AWKWARD },
    });
    expect(await rs.json()).toEqual([{ s: AWKWARD, bytes: Buffer.byteLength(AWKWARD) }]);
  });

  it("binds 64-bit integers at their limits and floats", async () => {
    const rs = await client.query({
      query: "SELECT toString({i:Int64}) AS i, toString({u:UInt64}) AS u, {f:Float64} * 2 AS f, {g:Float64} AS g",
      format: "JSONEachRow",
      query_params: { i: -9223372036854775808n, u: 18446744073709551615n, f: 1.5e-7, g: -0.25 },
    });
    expect(await rs.json()).toEqual([{ i: "-9223372036854775808", u: "18446744073709551615", f: 3e-7, g: -0.25 }]);
  });

  it("binds DateTime64(6, 'UTC') from a Date and from text with microseconds", async () => {
    const rs = await client.query({
      query: "SELECT toString({d:DateTime64(6, 'UTC')}) AS d, toString({t:DateTime64(6, 'UTC')}) AS t",
      format: "JSONEachRow",
      query_params: { d: new Date("2024-05-06T07:08:09.123Z"), t: "2024-05-06 07:08:09.123456" },
    });
    expect(await rs.json()).toEqual([{ d: "2024-05-06 07:08:09.123000", t: "2024-05-06 07:08:09.123456" }]);
  });

  it("binds arrays of awkward strings, maps, tuples and NULLs", async () => {
    const strings = ["x'y", "back\\slash", "new\nline", "tab\tbed", "😀", "", AWKWARD];
    const rs = await client.query({
      query: `SELECT {a:Array(String)} AS a, length({a:Array(String)}) AS n, {m:Map(String, UInt8)} AS m,
                {t:Tuple(Int32, String)} AS t, {ns:Nullable(String)} AS ns, {ni:Nullable(Int64)} AS ni,
                isNull({ns:Nullable(String)}) AS ns_is_null`,
      format: "JSONEachRow",
      query_params: { a: strings, m: { "k'1": 1, k2: 2 }, t: new TupleParam([7, "it's"]), ns: null, ni: 5 },
    });
    expect(await rs.json()).toEqual([
      { a: strings, n: strings.length, m: { "k'1": 1, k2: 2 }, t: [7, "it's"], ns: null, ni: 5, ns_is_null: 1 },
    ]);
  });

  it("binds parameters sent as multipart/form-data (how the client sends large ones)", async () => {
    const big = `${AWKWARD}|${"x".repeat(10_000)}`;
    const rs = await client.query({
      query: "SELECT {s:String} = {s:String} AS same, length({s:String}) AS bytes, {s:String} AS s",
      format: "JSONEachRow",
      query_params: { s: big },
      use_multipart_params: true,
    });
    expect(await rs.json()).toEqual([{ same: 1, bytes: Buffer.byteLength(big), s: big }]);
  });

  it("refuses a placeholder without a value (UNKNOWN_QUERY_PARAMETER)", async () => {
    const error = await clickhouseError(client.query({ query: "SELECT {missing:String}", format: "JSONEachRow" }));
    expect(error).toMatchObject({ code: "456", type: "UNKNOWN_QUERY_PARAMETER" });
  });
});

describe("tables and inserts", () => {
  it("creates and drops MergeTree and ReplacingMergeTree tables", async () => {
    await client.command({
      query: "CREATE TABLE plain (id UInt64, at DateTime64(6, 'UTC')) ENGINE = MergeTree ORDER BY id",
    });
    await client.command({
      query: "CREATE TABLE replacing (id UInt64, version UInt64) ENGINE = ReplacingMergeTree(version) ORDER BY id",
    });
    const tables = async () =>
      (
        await client.query({
          query: "SELECT name, engine FROM system.tables WHERE database = currentDatabase() ORDER BY name",
          format: "JSONEachRow",
        })
      ).json();
    expect(await tables()).toEqual(
      expect.arrayContaining([
        { name: "plain", engine: "MergeTree" },
        { name: "replacing", engine: "ReplacingMergeTree" },
      ]),
    );
    await client.command({ query: "DROP TABLE plain" });
    await client.command({ query: "DROP TABLE replacing" });
    expect(await tables()).not.toEqual(expect.arrayContaining([expect.objectContaining({ name: "plain" })]));
  });

  it("inserts 20,000 JSONEachRow rows, awkward strings intact, and reports them written", async () => {
    await client.command({
      query: "CREATE TABLE events (id UInt64, s String, at DateTime64(6, 'UTC')) ENGINE = MergeTree ORDER BY id",
    });
    const rows = Array.from({ length: 20_000 }, (_, id) => ({
      id,
      s: id % 1000 === 0 ? `${AWKWARD} #${id}` : `event ${id}`,
      at: "2024-05-06 07:08:09.123456",
    }));
    const result = await client.insert({ table: "events", values: rows, format: "JSONEachRow" });
    expect(result.executed).toBe(true);
    expect(summaryOf(result.response_headers)).toMatchObject({ written_rows: "20000" });
    const rs = await client.query({
      query: "SELECT count() AS n, uniqExact(id) AS ids, max(at) AS at FROM events",
      format: "JSONEachRow",
    });
    expect(await rs.json()).toEqual([{ n: 20_000, ids: 20_000, at: "2024-05-06 07:08:09.123456" }]);
    const awkward = await client.query({
      query: "SELECT id, s FROM events WHERE id % 1000 = 0 ORDER BY id",
      format: "JSONEachRow",
    });
    expect(await awkward.json()).toEqual(rows.filter((row) => row.id % 1000 === 0).map(({ id, s }) => ({ id, s })));
  });

  it("stores a batch once when it is inserted twice with the same insert_deduplication_token", async () => {
    await client.command({
      query: `CREATE TABLE dedup (id UInt32, v String) ENGINE = MergeTree ORDER BY id
              SETTINGS non_replicated_deduplication_window = 100`,
    });
    const batch = Array.from({ length: 50 }, (_, id) => ({ id, v: `v${id}` }));
    const insert = (token: string) =>
      client.insert({
        table: "dedup",
        values: batch,
        format: "JSONEachRow",
        clickhouse_settings: { insert_deduplication_token: token },
      });
    const count = async () =>
      (await (await client.query({ query: "SELECT count() AS n FROM dedup", format: "JSONEachRow" })).json())[0];
    await insert("batch-1");
    await insert("batch-1");
    expect(await count()).toEqual({ n: 50 });
    // The same rows under another token are another batch: the token, not the data, decides.
    await insert("batch-2");
    expect(await count()).toEqual({ n: 100 });
  });

  it("reports a malformed row of an insert as ClickHouse's parse error", async () => {
    await client.command({ query: "CREATE TABLE strict (id UInt64) ENGINE = MergeTree ORDER BY id" });
    const error = await clickhouseError(
      client.insert({ table: "strict", values: [{ id: 1 }, { id: "not a number" }], format: "JSONEachRow" }),
    );
    expect(error).toMatchObject({ code: "27", type: "CANNOT_PARSE_INPUT_ASSERTION_FAILED" });
  });
});

describe("settings", () => {
  it("refuses an insert under readonly=1 (READONLY), for that request only", async () => {
    await client.command({ query: "CREATE TABLE guarded (id UInt64) ENGINE = MergeTree ORDER BY id" });
    const error = await clickhouseError(
      client.insert({
        table: "guarded",
        values: [{ id: 1 }],
        format: "JSONEachRow",
        clickhouse_settings: { readonly: "1" },
      }),
    );
    expect(error).toMatchObject({ code: "164", type: "READONLY" });
    const readonlySelect = await client.query({
      query: "SELECT count() AS n FROM guarded",
      format: "JSONEachRow",
      clickhouse_settings: { readonly: "1" },
    });
    expect(await readonlySelect.json()).toEqual([{ n: 0 }]);
    await client.insert({ table: "guarded", values: [{ id: 2 }], format: "JSONEachRow" });
    const rs = await client.query({ query: "SELECT groupArray(id) AS ids FROM guarded", format: "JSONEachRow" });
    expect(await rs.json()).toEqual([{ ids: [2] }]);
  });

  it("throws past max_result_rows with result_overflow_mode=throw (TOO_MANY_ROWS_OR_BYTES)", async () => {
    const settings = { max_result_rows: "10", result_overflow_mode: "throw" } as const;
    const error = await clickhouseError(
      client.query({ query: "SELECT number FROM numbers(1000)", format: "JSONEachRow", clickhouse_settings: settings }),
    );
    expect(error).toMatchObject({ code: "396", type: "TOO_MANY_ROWS_OR_BYTES" });
    const small = await client.query({
      query: "SELECT number FROM numbers(5)",
      format: "JSONEachRow",
      clickhouse_settings: settings,
    });
    expect(await small.json()).toHaveLength(5);
  });

  it("stops a query at max_execution_time (TIMEOUT_EXCEEDED)", async () => {
    const started = Date.now();
    const error = await clickhouseError(
      client.query({
        query: "SELECT count() FROM numbers(100000000000) WHERE sleepEachRow(0) = 0",
        format: "JSONEachRow",
        clickhouse_settings: { max_execution_time: 1 },
      }),
    );
    expect(error).toMatchObject({ code: "159", type: "TIMEOUT_EXCEEDED" });
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it("refuses an unknown setting (UNKNOWN_SETTING)", async () => {
    const error = await clickhouseError(
      client.query({
        query: "SELECT 1",
        format: "JSONEachRow",
        clickhouse_settings: { no_such_setting_anywhere: 1 } as never,
      }),
    );
    expect(error).toMatchObject({ code: "115", type: "UNKNOWN_SETTING" });
  });
});

describe("errors", () => {
  it("carries a syntax error's code, type and message to the client", async () => {
    // Not a misspelt keyword: the engine quotes the failing token as "(SELEC)", which the client's parser would
    // take for the error's type (an uppercase word in parentheses), with a real server as well.
    const error = await clickhouseError(client.query({ query: "SELECT 1 2 3", format: "JSONEachRow" }));
    expect(error).toMatchObject({ code: "62", type: "SYNTAX_ERROR" });
    expect(error.message).toMatch(/Syntax error/);
  });

  it("names an unknown table (UNKNOWN_TABLE)", async () => {
    const error = await clickhouseError(
      client.query({ query: "SELECT * FROM no_such_table_here", format: "JSONEachRow" }),
    );
    expect(error).toMatchObject({ code: "60", type: "UNKNOWN_TABLE" });
    expect(error.message).toContain("no_such_table_here");
  });
});

describe.skipIf(!local)("the local-clickhouse process", () => {
  it("keeps the data across a restart over the same data directory", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "edgehog-clickhouse-restart-"));
    try {
      const first = await startLocalClickHouse({ dataDir, quiet: true });
      const before = createClient({ url: first.url });
      await before.command({ query: "CREATE TABLE kept (id UInt64, s String) ENGINE = MergeTree ORDER BY id" });
      await before.insert({ table: "kept", values: [{ id: 1, s: AWKWARD }, { id: 2 }], format: "JSONEachRow" });
      await before.close();
      await first.stop();

      const second = await startLocalClickHouse({ dataDir, quiet: true });
      const after = createClient({ url: second.url });
      try {
        const rs = await after.query({ query: "SELECT id, s FROM kept ORDER BY id", format: "JSONEachRow" });
        expect(await rs.json()).toEqual([
          { id: 1, s: AWKWARD },
          { id: 2, s: "" },
        ]);
      } finally {
        await after.close();
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("checks credentials when CLICKHOUSE_USER/CLICKHOUSE_PASSWORD are set (AUTHENTICATION_FAILED)", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "edgehog-clickhouse-auth-"));
    const server = await startLocalClickHouse({
      dataDir,
      quiet: true,
      env: { CLICKHOUSE_USER: "edgehog", CLICKHOUSE_PASSWORD: "s3cret" },
    });
    const wrong = createClient({ url: server.url, username: "edgehog", password: "guess" });
    const right = createClient({ url: server.url, username: "edgehog", password: "s3cret" });
    try {
      const error = await clickhouseError(wrong.query({ query: "SELECT 1", format: "JSONEachRow" }));
      expect(error).toMatchObject({ code: "516", type: "AUTHENTICATION_FAILED" });
      expect(await (await right.query({ query: "SELECT 1 AS one", format: "JSONEachRow" })).json()).toEqual([
        { one: 1 },
      ]);
    } finally {
      await wrong.close();
      await right.close();
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
