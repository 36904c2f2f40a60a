import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, createProject } from "../helpers";
import { capture, personByDistinctId, personsPath } from "./helpers";

let project: { id: number; api_token: string };
const path = (rest = "") => personsPath(project.id, rest);
const countEvents = async (event: string) =>
  (await env.DB.prepare("SELECT count(*) AS n FROM events WHERE project_id = ? AND event = ?")
    .bind(project.id, event)
    .first<{ n: number }>())!.n;

beforeAll(async () => {
  project = await createProject();
  await capture(project.api_token, [{ event: "x", distinct_id: "atomic", properties: { $set: { a: 1 } } }]);
});

describe("person writes are one transaction with their activity entry", () => {
  it("a failing activity insert leaves the person, its events and the log unchanged", async () => {
    const person = (await personByDistinctId(project.id, "atomic"))!;
    // Makes every activity insert of this project fail, as a D1 error in that statement would.
    await env.DB.exec(
      `CREATE TRIGGER fail_person_activity BEFORE INSERT ON activity_log WHEN NEW.project_id = ${project.id} BEGIN SELECT RAISE(ABORT, 'test: activity refused'); END`,
    );
    try {
      const patch = await call(path(`${person.id}/`), { method: "PATCH", body: { properties: { a: 2 } } });
      expect(patch.status).toBe(500);
      const unset = await call(path(`${person.id}/delete_property/`), { method: "POST", body: { $unset: "a" } });
      expect(unset.status).toBe(500);
    } finally {
      await env.DB.exec("DROP TRIGGER fail_person_activity");
    }
    expect((await personByDistinctId(project.id, "atomic"))!.properties).toEqual({ a: 1 });
    expect(await countEvents("$set")).toBe(0);
    expect(await countEvents("$delete_person_property")).toBe(0);
  });

  it("records before/after from the state the write applied to", async () => {
    const person = (await personByDistinctId(project.id, "atomic"))!;
    const res = await call(path(`${person.id}/`), { method: "PATCH", body: { properties: { a: 3, b: "x" } } });
    expect(res.status).toBe(200);
    const activity = await call(path(`${person.id}/activity/`));
    expect(activity.json.results[0].detail.changes).toEqual([
      { type: "Person", action: "changed", field: "properties.a", before: 1, after: 3 },
      { type: "Person", action: "changed", field: "properties.b", before: null, after: "x" },
    ]);
  });
});
