import { env } from "cloudflare:workers";
import { ClickHouseError } from "@clickhouse/client-web";
import { describe, expect, it } from "vitest";
import { analyticsStore } from "../../../src/analytics";
import { lifecyclePeriods } from "../../../src/analytics/periods";
import { createDb } from "../../../src/db/client";
import type { Env } from "../../../src/env";
import { compileClickHousePlan } from "../../../src/hogql/clickhouse/compile";
import { hogqlParser } from "../../../src/hogql/parser";

const store = (overrides: Record<string, string> = {}) =>
  analyticsStore({ ...env, ...overrides } as unknown as Env, createDb(env.DB));

async function failureOf(query: string, overrides: Record<string, string> = {}, values: Record<string, unknown> = {}) {
  const plan = compileClickHousePlan(query, { parser: await hogqlParser(), variableTypes: { n: "Number" } });
  const s = store(overrides);
  expect(s.engine).toBe("clickhouse");
  const error = await s.runHogQL(plan, { projectId: 1, timezone: "UTC", values, limit: 10, offset: 0 }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).not.toBeNull();
  return s.classifyError(error);
}

describe("ClickHouse errors, classified as D1's are", () => {
  it("a query's own error is the caller's, said without ClickHouse's text", async () => {
    const failure = await failureOf("select intDiv(1, 0) as x");
    expect(failure).toEqual({ kind: "query", message: "the query divides an integer by zero" });
  });

  it("a variable its type cannot take is the caller's 400, naming it", async () => {
    const failure = await failureOf("select 1 as x where 1 > {variables.n}", {}, { n: "many" });
    expect(failure).toEqual({ kind: "query", message: "Variable n must be a number" });
  });

  it("an unreachable server is retryable; a refused login is ours, a 500; a missing database is misconfigured", async () => {
    const down = await failureOf("select 1 as x", { CLICKHOUSE_URL: "http://127.0.0.1:9" });
    expect(down).toMatchObject({ kind: "server", retryable: true });
    // Not migrated (npm run clickhouse:migrate creates the database): bound to no deployment, said so.
    const missing = await failureOf("select count() as c from events", { CLICKHOUSE_DATABASE: "no_such_database" });
    expect(missing).toMatchObject({ kind: "misconfigured" });
    expect(missing.kind === "misconfigured" && missing.detail).toContain(
      '"no_such_database" (CLICKHOUSE_DATABASE) is not bound to this deployment: run npm run clickhouse:migrate',
    );
    const login = new ClickHouseError({
      message: "nobody: Authentication failed",
      code: "516",
      type: "AUTHENTICATION_FAILED",
    });
    expect(store().classifyError(login)).toMatchObject({ kind: "server", retryable: false });
  });
});

describe("the persons analysis on ClickHouse, when the server fails", () => {
  const lifecycle = {
    question: {
      projectId: 1,
      series: { event: "$pageview", order: 0, properties: undefined },
      properties: undefined,
      ...lifecyclePeriods(Date.parse("2024-03-05T00:00:00Z"), Date.parse("2024-03-06T00:00:00Z"), "day", "UTC", 0),
    },
    period: 2,
    status: "new" as const,
    rows: { limit: 10, offset: 0 },
  };

  it("answers a retryable 503 when it is unreachable, and a 500 saying what to do for a missing database", async () => {
    const down = await store({ CLICKHOUSE_URL: "http://127.0.0.1:9" })
      .lifecycleActors(lifecycle)
      .catch((e) => e);
    expect(down).toMatchObject({ status: 503, code: "service_unavailable" });
    const missing = await store({ CLICKHOUSE_DATABASE: "no_such_database" })
      .lifecycleActors(lifecycle)
      .catch((e) => e);
    expect(missing).toMatchObject({ status: 500, code: "misconfigured" });
  });
});
