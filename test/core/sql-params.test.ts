import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { Params } from "../../src/lib/sql";

describe("embedding drizzle fragments in hand-written SQL", () => {
  it("renumbers positional parameters, skipping quoted text, and shares equal values", () => {
    const params = new Params();
    const first = params.bind(1);
    const fragment = sql`(json_extract(${sql.raw("x.properties")}, ${sql.raw(`'$."a?b"'`)}) = ${"v"} AND x.project_id = ${1} AND "we?rd" = ${"it's"})`;
    expect(params.embed(fragment)).toBe(
      `(json_extract(x.properties, '$."a?b"') = ?2 AND x.project_id = ${first} AND "we?rd" = ?3)`,
    );
    expect(params.list).toEqual([1, "v", "it's"]);
  });
});
