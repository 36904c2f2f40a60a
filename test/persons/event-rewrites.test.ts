import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, createProject } from "../helpers";
import { capture, personByDistinctId, personsPath } from "./helpers";

let project: { id: number; api_token: string };
const path = (rest = "") => personsPath(project.id, rest);
const count = async (where: string, ...binds: unknown[]) =>
  (await env.DB.prepare(`SELECT count(*) AS n FROM events WHERE project_id = ? AND ${where}`)
    .bind(project.id, ...binds)
    .first<{ n: number }>())!.n;

beforeAll(async () => {
  project = await createProject();
});

describe("event rewrites run outside the person batch", () => {
  it("a failing rewrite of a merged person's events does not fail or undo the capture", async () => {
    await capture(project.api_token, [
      { event: "seen", distinct_id: "t-anon" },
      { event: "seen", distinct_id: "t-anon" },
      { event: "seen", distinct_id: "t-user" },
    ]);
    const anon = (await personByDistinctId(project.id, "t-anon"))!;
    await env.DB.exec(
      `CREATE TRIGGER fail_event_move BEFORE UPDATE OF person_id ON events WHEN NEW.project_id = ${project.id} BEGIN SELECT RAISE(ABORT, 'test: rewrite refused'); END`,
    );
    try {
      await capture(project.api_token, [
        { event: "$identify", distinct_id: "t-user", properties: { $anon_distinct_id: "t-anon" } },
      ]);
    } finally {
      await env.DB.exec("DROP TRIGGER fail_event_move");
    }
    const merged = (await personByDistinctId(project.id, "t-anon"))!;
    expect(merged.distinct_ids.sort()).toEqual(["t-anon", "t-user"]);
    expect(merged.id).not.toBe(anon.id);
    expect(await count("event = '$identify' AND person_id = ?", merged.id)).toBe(1);
    // The documented window: the rewrite failed, so these events still carry the merged-away id.
    expect(await count("distinct_id = 't-anon' AND person_id = ?", anon.id)).toBe(2);
  });

  it("merge, split and delete_events move or remove more events than one chunk holds", async () => {
    const heavy = 5_500; // more than one 5,000-row chunk
    for (let i = 0; i < heavy; i += 1000) {
      await capture(
        project.api_token,
        Array.from({ length: Math.min(1000, heavy - i) }, (_, k) => ({
          event: "view",
          distinct_id: "h-anon",
          properties: { k: i + k },
        })),
      );
    }
    await capture(project.api_token, [{ event: "view", distinct_id: "h-user" }]);
    await capture(project.api_token, [
      { event: "$identify", distinct_id: "h-user", properties: { $anon_distinct_id: "h-anon" } },
    ]);
    const merged = (await personByDistinctId(project.id, "h-user"))!;
    expect(merged.distinct_ids.sort()).toEqual(["h-anon", "h-user"]);
    expect(await count("person_id = ?", merged.id)).toBe(heavy + 2);

    const split = await call(path(`${merged.id}/split/`), {
      method: "POST",
      body: { distinct_ids_to_split: ["h-anon"] },
    });
    expect(split.status).toBe(200);
    const splitOff = (await personByDistinctId(project.id, "h-anon"))!;
    expect(splitOff.id).not.toBe(merged.id);
    expect(await count("person_id = ?", splitOff.id)).toBe(heavy);
    expect(await count("person_id = ?", merged.id)).toBe(2);

    const del = await call(path("bulk_delete/"), {
      method: "POST",
      body: { distinct_ids: ["h-anon"], delete_events: true },
    });
    expect(del.status).toBe(200);
    expect(await count("distinct_id = 'h-anon'")).toBe(0);
    expect(await count("distinct_id = 'h-user'")).toBe(2);
  });
});
