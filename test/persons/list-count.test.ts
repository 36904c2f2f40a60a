import { describe, expect, it } from "vitest";
import { call, createProject, onClickHouse } from "../helpers";
import { capture, personsPath } from "./helpers";

/**
 * The persons list's `count`: exact on every page where it is cheap (no filter: kept by triggers; a
 * filter the property index decides; an exact lookup), and where it means reading every match (a
 * search, other filters) taken on the first page and remembered for the pages after it. `next` is
 * always right: it comes from the rows themselves. On ClickHouse a search or filter is answered from
 * the persons mirror, which counts the matches in the same pass as the page: exact on every page.
 */

const page = async (projectId: number, query: string, offset: number) => {
  const res = await call(`${personsPath(projectId)}?limit=1&offset=${offset}&${query}`);
  expect(res.status, res.text).toBe(200);
  return res.json as { count: number; next: string | null; results: { distinct_ids: string[] }[] };
};

const properties = (filters: unknown[]) => `properties=${encodeURIComponent(JSON.stringify(filters))}`;

describe("persons list count", () => {
  it("a search or an unindexed filter: counted on the first page, remembered after it; next from the rows", async () => {
    const { id: projectId, api_token: token } = await createProject();
    const person = (n: number) => ({
      event: "signed up",
      distinct_id: `walker-${n}`,
      properties: { $set: { email: `walker${n}@example.com` } },
    });
    await capture(token, [person(1), person(2), person(3)]);
    const queries = [
      "search=walker",
      properties([{ key: "email", value: "walker", operator: "icontains", type: "person" }]),
    ];
    for (const [i, query] of queries.entries()) {
      const first = await page(projectId, query, 0);
      // Three persons, and one more per query before this one.
      const before = 3 + i;
      expect(first.count, query).toBe(before);
      // A new match after the first page: later pages keep the walk's count (D1), their rows are current.
      await capture(token, [person(before + 1)]);
      const second = await page(projectId, query, 1);
      expect(second.count, query).toBe(onClickHouse ? before + 1 : before);
      const penultimate = await page(projectId, query, before - 1);
      expect(penultimate.next, `${query}: a row follows, whatever the remembered count says`).not.toBeNull();
      const last = await page(projectId, query, before);
      expect(last.results).toHaveLength(1);
      expect(last.next).toBeNull();
      // A first page counts afresh.
      expect((await page(projectId, query, 0)).count, query).toBe(before + 1);
    }
  });

  it("no filter, or a filter the index decides: exact on every page", async () => {
    const { id: projectId, api_token: token } = await createProject();
    const person = (n: number) => ({
      event: "signed up",
      distinct_id: `exact-${n}`,
      properties: { $set: { plan: "pro" } },
    });
    await capture(token, [person(1), person(2)]);
    for (const [i, query] of ["", properties([{ key: "plan", value: "pro", type: "person" }])].entries()) {
      const before = 2 + i;
      expect((await page(projectId, query, 0)).count, query).toBe(before);
      await capture(token, [person(before + 1)]);
      expect((await page(projectId, query, 1)).count, query).toBe(before + 1);
    }
  });
});
