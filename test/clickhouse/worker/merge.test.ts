import { describe, expect, it } from "vitest";
import { call, createProject } from "../../helpers";

import { capture, personUuid, rows, until } from "./queue-helpers";

/** A HogQL endpoint run's rows on the project (saved, then run through the API as a user would). */
async function hogql(projectId: number, query: string) {
  const created = await call(`/api/environments/${projectId}/endpoints/`, {
    method: "POST",
    body: { name: "q", query: { kind: "HogQLQuery", query } },
  });
  expect(created.status).toBe(201);
  const run = await call(`/api/environments/${projectId}/endpoints/q/run`);
  expect(run.status).toBe(200);
  return run.json.results as unknown[][];
}

const overridesOf = (projectId: number, count: number) =>
  until<{ distinct_id: string; person_id: string }>(
    "SELECT distinct_id, argMax(person_id, version) AS person_id FROM person_distinct_id_overrides WHERE team_id = {team:Int64} GROUP BY distinct_id ORDER BY distinct_id",
    { team: projectId },
    (r) => r.length === count,
  );

describe("merges on ClickHouse", () => {
  it("reads the earlier events of the anonymous id as the identified person after $identify", async () => {
    const project = await createProject();
    const token = project.api_token;
    await capture("/batch/", {
      api_key: token,
      batch: [
        { event: "visit", distinct_id: "anon", properties: {} },
        { event: "login", distinct_id: "user", properties: {} },
      ],
    });
    const anon = (await personUuid(project.id, "anon"))!;
    const user = (await personUuid(project.id, "user"))!;
    expect(anon).not.toBe(user);
    await until("SELECT uuid FROM events WHERE team_id = {team:Int64}", { team: project.id }, (r) => r.length === 2);

    await capture("/i/v0/e/", {
      api_key: token,
      event: "$identify",
      distinct_id: "user",
      properties: { $anon_distinct_id: "anon" },
    });
    expect(await personUuid(project.id, "anon")).toBe(user);
    expect(await overridesOf(project.id, 1)).toEqual([{ distinct_id: "anon", person_id: user }]);
    await until("SELECT uuid FROM events WHERE team_id = {team:Int64}", { team: project.id }, (r) => r.length === 3);
    // The stored row keeps the person it was ingested with (nothing is rewritten); HogQL reads it as the identified one.
    expect(
      await rows("SELECT person_id FROM events WHERE team_id = {team:Int64} AND event = 'visit'", { team: project.id }),
    ).toEqual([{ person_id: anon }]);
    expect(await hogql(project.id, "select event, distinct_id, person_id from events order by event")).toEqual([
      ["$identify", "user", user],
      ["login", "user", user],
      ["visit", "anon", user],
    ]);
  });

  it("mirrors a merge: the merged-away person deleted, every one of its distinct ids moved and overridden", async () => {
    const project = await createProject();
    const token = project.api_token;
    // `anon` holds a second distinct id the merge never mentions.
    await capture("/batch/", {
      api_key: token,
      batch: [
        { event: "visit", distinct_id: "anon", properties: { $set: { a: 1 } } },
        { event: "$create_alias", distinct_id: "anon", properties: { alias: "anon-2" } },
        { event: "visit", distinct_id: "anon-2", properties: {} },
        { event: "login", distinct_id: "user", properties: {} },
      ],
    });
    const anon = (await personUuid(project.id, "anon"))!;
    const user = (await personUuid(project.id, "user"))!;
    await until("SELECT uuid FROM events WHERE team_id = {team:Int64}", { team: project.id }, (r) => r.length === 4);

    // An identified person merges only dangerously.
    await capture("/batch/", {
      api_key: token,
      batch: [{ event: "$merge_dangerously", distinct_id: "user", properties: { alias: "anon" } }],
    });
    expect(await personUuid(project.id, "anon-2")).toBe(user);
    expect(await overridesOf(project.id, 2)).toEqual([
      { distinct_id: "anon", person_id: user },
      { distinct_id: "anon-2", person_id: user },
    ]);
    expect(
      await rows(
        "SELECT argMax(is_deleted, version) AS deleted FROM person WHERE team_id = {team:Int64} AND id = {id:UUID}",
        { team: project.id, id: anon },
      ),
    ).toEqual([{ deleted: 1 }]);
    expect(
      await rows(
        "SELECT distinct_id, argMax(person_id, version) AS person_id FROM person_distinct_id2 WHERE team_id = {team:Int64} GROUP BY distinct_id ORDER BY distinct_id",
        { team: project.id },
      ),
    ).toEqual([
      { distinct_id: "anon", person_id: user },
      { distinct_id: "anon-2", person_id: user },
      { distinct_id: "user", person_id: user },
    ]);
    await until("SELECT uuid FROM events WHERE team_id = {team:Int64}", { team: project.id }, (r) => r.length === 5);
    // The merged person's properties (the target's win on conflicts) reach the events of both.
    expect(
      await hogql(
        project.id,
        "select distinct_id, person_id, person.properties.a from events order by distinct_id, event",
      ),
    ).toEqual([
      ["anon", user, 1],
      ["anon", user, 1],
      ["anon-2", user, 1],
      ["user", user, 1],
      ["user", user, 1],
    ]);
  });
});
