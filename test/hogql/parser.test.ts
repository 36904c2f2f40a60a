import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { hogqlParser, hogqlParserStarted } from "../../src/hogql/parser";

describe("HogQL parser in workerd", () => {
  // First in this file: its isolate has not parsed anything yet.
  it("is not instantiated when the worker loads or serves a request that needs no HogQL", async () => {
    const worker = (await import("../../src/index")).default;
    const res = await worker.fetch(new Request("http://edgehog.test/_health"), env, createExecutionContext());
    expect(res.status).toBe(200);
    expect(hogqlParserStarted()).toBe(false);
    await hogqlParser();
    expect(hogqlParserStarted()).toBe(true);
  });

  it("parses a select into PostHog's AST", async () => {
    const parser = await hogqlParser();
    const ast = JSON.parse(
      parser.parseSelect(
        "select event, count() from events where properties.$browser = {variables.b} group by event",
        true,
      ),
    );
    expect(ast.node).toBe("SelectQuery");
    expect(JSON.stringify(ast)).toContain("variables");
  });

  it("reports syntax errors", async () => {
    const parser = await hogqlParser();
    const ast = JSON.parse(parser.parseSelect("selet 100", true));
    expect(ast.error).toBe(true);
  });
});
