import { describe, expect, it } from "vitest";
import { call, createProject } from "../helpers";
import { capture, everyone, personByDistinctId, personsPath } from "./helpers";

/**
 * The persons list's `search` reads a trigram index (migration 0007) kept in step by triggers. After
 * each kind of write (capture with $set, an $identify merge, an alias, a property update, a split, a
 * distinct id reset, a deletion), every search answers exactly what a substring match over the
 * persons' current email, name, uuid and distinct ids (ignoring ASCII case) gives, computed here from
 * the persons API itself.
 */

type Listed = { uuid: string; distinct_ids: string[]; properties: Record<string, unknown> };

const asciiLower = (text: string) => text.replace(/[A-Z]/g, (c) => c.toLowerCase());

async function searched(projectId: number, term: string): Promise<string[]> {
  const res = await call(`${personsPath(projectId)}?limit=1000&search=${encodeURIComponent(term)}`);
  expect(res.status, res.text).toBe(200);
  expect(res.json.count).toBe(res.json.results.length);
  return res.json.results.map((p: Listed) => p.uuid).sort();
}

/** Every term's answer equals the substring match over the persons' fields. */
async function expectSearches(projectId: number, terms: string[]) {
  const persons = await everyone(projectId);
  for (const term of terms) {
    const t = asciiLower(term.trim());
    const want = persons
      .filter((p) =>
        [p.properties.email, p.properties.name, p.uuid, ...p.distinct_ids].some(
          (field) => field !== undefined && field !== null && asciiLower(String(field)).includes(t),
        ),
      )
      .map((p) => p.uuid)
      .sort();
    expect(await searched(projectId, term), `search ${JSON.stringify(term)}`).toEqual(want);
  }
}

const TERMS = [
  "ada",
  "ADA@",
  "lovelace",
  "grace",
  "example.com",
  "anon-",
  "user-2",
  "zz",
  "a",
  "100%_x",
  "_x",
  "no such person at all",
  "a-very-long-distinct-id-that-goes-on-and-on-past-fifty-bytes-of-text",
];

describe("persons search through its index", () => {
  it("finds persons by email, name, uuid and any distinct id after each kind of write", async () => {
    const { id: projectId, api_token: token } = await createProject();
    await capture(token, [
      {
        event: "signed up",
        distinct_id: "user-1",
        properties: { $set: { email: "Ada@Example.com", name: "Ada Lovelace" } },
      },
      { event: "signed up", distinct_id: "user-2", properties: { $set: { email: "grace@example.com" } } },
      { event: "viewed", distinct_id: "anon-1" },
      { event: "viewed", distinct_id: "anon-2", properties: { $set: { name: "100%_x" } } },
      {
        event: "viewed",
        distinct_id: "a-very-long-distinct-id-that-goes-on-and-on-past-fifty-bytes-of-text-and-more",
      },
    ]);
    const uuidPart = (await everyone(projectId))[0].uuid.slice(9, 18);
    await expectSearches(projectId, [...TERMS, uuidPart]);

    // An $identify merges anon-1 into user-2's person; an alias adds a distinct id.
    await capture(token, [
      { event: "$identify", distinct_id: "user-2", properties: { $anon_distinct_id: "anon-1" } },
      { event: "$create_alias", distinct_id: "user-1", properties: { alias: "zz-alias" } },
    ]);
    await expectSearches(projectId, TERMS);

    // A new email and name; then one removed.
    await capture(token, [
      { event: "$set", distinct_id: "user-1", properties: { $set: { email: "countess@lovelace.org" } } },
      { event: "$set", distinct_id: "user-2", properties: { $unset: ["email"], $set: { name: "Grace Hopper" } } },
    ]);
    await expectSearches(projectId, [...TERMS, "countess", "hopper"]);

    // A split moves anon-1 back to a person of its own.
    const merged = (await personByDistinctId(projectId, "user-2"))!;
    const split = await call(personsPath(projectId, `${merged.id}/split/`), {
      method: "POST",
      body: { main_distinct_id: "user-2" },
    });
    expect(split.status).toBe(200);
    await expectSearches(projectId, TERMS);

    // A deleted person is found by nothing.
    const ada = (await personByDistinctId(projectId, "user-1"))!;
    expect((await call(personsPath(projectId, `${ada.id}/`), { method: "DELETE" })).status).toBe(204);
    await expectSearches(projectId, [...TERMS, "countess", ada.uuid.slice(0, 8)]);

    // Its distinct id reset and used again: a new person, found by it.
    const reset = await call(personsPath(projectId, "reset_person_distinct_id/"), {
      method: "POST",
      body: { distinct_id: "user-1" },
    });
    expect(reset.status, reset.text).toBe(200);
    await capture(token, [
      { event: "back", distinct_id: "user-1", properties: { $set: { email: "again@example.com" } } },
    ]);
    await expectSearches(projectId, [...TERMS, "again", "user-1"]);
    expect((await searched(projectId, "user-1")).length).toBe(1);
  });

  it("never finds another project's persons", async () => {
    const mine = await createProject();
    const theirs = await createProject();
    await capture(theirs.api_token, [
      { event: "x", distinct_id: "shared-name", properties: { $set: { email: "x@shared.io" } } },
    ]);
    await capture(mine.api_token, [{ event: "x", distinct_id: "mine-only" }]);
    expect(await searched(mine.id, "shared")).toEqual([]);
    expect((await searched(theirs.id, "shared")).length).toBe(1);
  });
});
