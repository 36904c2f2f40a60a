import { describe, expect, it } from "vitest";
import { hogqlParser } from "../../src/hogql/parser";

describe("HogQL parser in workerd", () => {
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
