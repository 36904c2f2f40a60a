import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { countPersonsMatching } from "../../src/persons/matching";
import { parseFilterGroup } from "../../src/shared/filters";
import { regexToGlobs } from "../../src/shared/filters/regex";
import { createProject } from "../helpers";
import { capture } from "./helpers";

describe("regex to GLOB", () => {
  it("translates the supported subset exactly", () => {
    expect(regexToGlobs("abc")).toEqual(["*abc*"]);
    expect(regexToGlobs("^abc$")).toEqual(["abc"]);
    expect(regexToGlobs("^a.c")).toEqual(["a?c*"]);
    expect(regexToGlobs("^a.*c$")).toEqual(["a*c"]);
    expect(regexToGlobs("^(a|bc)d$")).toEqual(["ad", "bcd"]);
    expect(regexToGlobs("^colou?r$")).toEqual(["colour", "color"].reverse());
    expect(regexToGlobs("^\\d{2}$")).toEqual(["[0-9][0-9]"]);
    expect(regexToGlobs("[^a-c]x")).toEqual(["*[^a-c]x*"]);
    expect(regexToGlobs("a\\*b?")).toEqual(["*a[*]*", "*a[*]b*"]);
    expect(regexToGlobs("^[\\]x-]$")).toEqual(["[]x-]"]);
  });

  it("refuses what GLOB cannot express", () => {
    for (const p of ["a*", "\\d+", "(?i)a", "a(?=b)", "\\1", "a{2,}", "(a", "[a"])
      expect(() => regexToGlobs(p), p).toThrow();
  });
});

describe("countPersonsMatching", () => {
  let projectId: number;
  beforeAll(async () => {
    const project = await createProject();
    projectId = project.id;
    await capture(project.api_token, [
      { event: "x", distinct_id: "a", properties: { $set: { plan: "pro" } } },
      { event: "x", distinct_id: "b", properties: { $set: { plan: "free" } } },
      { event: "x", distinct_id: "c" },
    ]);
  });

  it("counts matching persons and the project's total", async () => {
    const db = createDb(env.DB);
    expect(
      await countPersonsMatching(db, projectId, parseFilterGroup([{ key: "plan", value: "pro" }], "filters")),
    ).toEqual({ matching: 1, total: 3 });
    expect(await countPersonsMatching(db, projectId, parseFilterGroup({ type: "OR", values: [] }, "filters"))).toEqual({
      matching: 3,
      total: 3,
    });
    expect(
      await countPersonsMatching(db, projectId, parseFilterGroup([{ key: "plan", operator: "is_not_set" }], "filters")),
    ).toEqual({ matching: 1, total: 3 });
  });
});
