import { describe, expect, it } from "vitest";
import { classifyD1QueryError } from "../../src/analytics/d1/query-errors";
import { classifyStubError, queryFailureError } from "../../src/endpoints/query-errors";

/** D1's error texts as its binding raises them (local D1 and Cloudflare's both use this form). */
const d1 = (message: string) => new Error(`D1_ERROR: ${message}`);

/** The body of every 500: nothing of the cause. */
const SERVER_ERROR_BODY = { type: "server_error", code: "error", detail: "A server error occurred.", attr: null };

/** Runs `check` with console.error silenced: server failures are logged, which would only clutter the test output. */
function quietly(check: () => void) {
  const errors = console.error;
  console.error = () => {};
  try {
    check();
  } finally {
    console.error = errors;
  }
}

describe("classifying D1 failures of a run", () => {
  it("a SQLite error caused by the query is the caller's 400, cleaned of compiled internals", () => {
    const cases: [string, string][] = [
      ["malformed JSON: SQLITE_ERROR", "malformed JSON"],
      ["integer overflow: SQLITE_ERROR", "integer overflow"],
      ["string or blob too big: SQLITE_TOOBIG", "string or blob too big"],
      ["datatype mismatch: SQLITE_MISMATCH", "datatype mismatch"],
      [
        "no such column: s.project_id at offset 719: SQLITE_ERROR",
        "the query refers to a column that does not exist where it is used",
      ],
      [
        "ambiguous column name: __person_properties: SQLITE_ERROR",
        "a column name is ambiguous; qualify it with its table alias",
      ],
      ['near "LIMIT": syntax error at offset 12: SQLITE_ERROR', "the query could not be translated into valid SQL"],
      [
        "wrong number of arguments to function json_extract(): SQLITE_ERROR",
        "a function is called with the wrong number of arguments",
      ],
      [
        "misuse of aggregate function count(): SQLITE_ERROR",
        "an aggregate is used where it is not allowed (in WHERE, or inside another aggregate)",
      ],
      ["bad value in __person_created_at: SQLITE_ERROR", "the query failed in the database"],
      ["too many terms in compound SELECT: SQLITE_ERROR", "too many terms in compound SELECT"],
    ];
    for (const [raw, message] of cases) {
      expect(classifyD1QueryError(d1(raw)), raw).toEqual({ kind: "query", message });
      const error = queryFailureError(classifyD1QueryError(d1(raw)), "test");
      expect(error.status).toBe(400);
      expect(error.toBody()).toEqual({
        type: "validation_error",
        code: "query_execution_failed",
        detail: `Query execution failed: ${message}`,
        attr: "query",
      });
      expect(error.detail).not.toMatch(/offset|SQLITE_|__|s\.project_id/);
    }
  });

  it("D1 outages, overload and timeouts are a retryable 503; anything else a 500; neither shows the detail", () => {
    const retryable = [
      "D1 DB is overloaded. Too many requests queued.",
      "D1 DB is overloaded. Requests queued for too long.",
      "Network connection lost.",
      "D1 DB reset because its code was updated.",
      "D1 DB storage operation exceeded timeout which caused object to be reset.",
      "D1 DB's isolate exceeded its memory limit and was reset.",
      "Cannot resolve D1 DB due to transient issue on remote node.",
      "interrupted: SQLITE_INTERRUPT",
      "database is locked: SQLITE_BUSY",
      "the query timed out: SQLITE_ERROR",
    ];
    quietly(() => {
      for (const raw of retryable) {
        const failure = classifyD1QueryError(d1(raw));
        expect(failure, raw).toMatchObject({ kind: "server", retryable: true });
        const error = queryFailureError(failure, "test");
        expect(error.status).toBe(503);
        expect(error.toBody()).toEqual({
          type: "server_error",
          code: "service_unavailable",
          detail: "The database is temporarily unavailable; retry the request.",
          attr: null,
        });
      }
      for (const raw of [
        d1("Exceeded maximum DB size"),
        d1("disk I/O error: SQLITE_IOERR"),
        new TypeError("Cannot read properties of undefined"),
      ]) {
        const failure = classifyD1QueryError(raw);
        expect(failure).toMatchObject({ kind: "server", retryable: false });
        expect(queryFailureError(failure, "test").toBody()).toEqual(SERVER_ERROR_BODY);
      }
    });
  });

  it("a failed call to the endpoint's Durable Object is a 5xx, retryable when Workers marks it so", () => {
    const overloaded = Object.assign(new Error("Durable Object is overloaded. Too many requests queued."), {
      overloaded: true,
      retryable: true,
    });
    const reset = Object.assign(new Error("Durable Object reset because its code was updated."), { retryable: true });
    const broken = new Error("Cannot read properties of undefined (reading 'x')");
    expect(classifyStubError(overloaded)).toMatchObject({ kind: "server", retryable: true });
    expect(classifyStubError(reset)).toMatchObject({ kind: "server", retryable: true });
    expect(classifyStubError(broken)).toMatchObject({ kind: "server", retryable: false });
    quietly(() => {
      expect(queryFailureError(classifyStubError(overloaded), "test").status).toBe(503);
      expect(queryFailureError(classifyStubError(broken), "test").toBody()).toEqual(SERVER_ERROR_BODY);
    });
  });
});
