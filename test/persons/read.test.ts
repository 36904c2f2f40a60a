import { beforeAll, describe, expect, it } from "vitest";
import { call, createKey, createProject, envelope } from "../helpers";
import { capture, personByDistinctId, personsPath } from "./helpers";

let project: { id: number; api_token: string };
const path = (rest = "") => personsPath(project.id, rest);

beforeAll(async () => {
  project = await createProject();
  await capture(project.api_token, [
    {
      event: "x",
      distinct_id: "alice",
      properties: {
        $set: {
          email: "alice@example.com",
          name: "Alice",
          age: 31,
          plan: "pro",
          signup: "2024-03-01T10:00:00Z",
          beta: true,
        },
      },
      timestamp: "2024-01-01T00:00:00Z",
    },
    {
      event: "x",
      distinct_id: "bob",
      properties: { $set: { email: "bob@example.com", age: "25", plan: "free", signup: "2023-06-15" } },
      timestamp: "2024-01-02T00:00:00Z",
    },
    {
      event: "x",
      distinct_id: "carol",
      properties: { $set: { name: "Carol", age: 45.5, plan: "Pro-Max" } },
      timestamp: "2024-01-03T00:00:00Z",
    },
    { event: "x", distinct_id: "0190e7a5-aaaa-7000-8000-000000000001", timestamp: "2024-01-04T00:00:00Z" },
  ]);
  await capture(project.api_token, [
    {
      event: "$identify",
      distinct_id: "dave",
      properties: { $anon_distinct_id: "0190e7a5-aaaa-7000-8000-000000000001" },
    },
  ]);
});

describe("persons list", () => {
  it("lists SerializedPerson items newest first with count and links", async () => {
    const res = await call(path());
    expect(res.status).toBe(200);
    expect(Object.keys(res.json)).toEqual(["count", "next", "previous", "results"]);
    expect(res.json.count).toBe(4);
    const [first] = res.json.results;
    expect(first.type).toBe("person");
    expect(first.id).toBe(first.uuid);
    expect(first.distinct_ids).toEqual(["dave", "0190e7a5-aaaa-7000-8000-000000000001"]);
    expect(first.name).toBe("dave");
    expect(first.is_identified).toBe(true);
    expect(res.json.results.map((p: any) => p.name)).toEqual(["dave", "Carol", "bob@example.com", "alice@example.com"]);
  });

  it("walking next visits every person exactly once", async () => {
    const seen: string[] = [];
    let url: string | null = `${path()}?limit=1`;
    let pages = 0;
    while (url && pages < 10) {
      const res = await call(url.replace("http://edgehog.test", ""));
      seen.push(...res.json.results.map((p: any) => p.uuid));
      url = res.json.next;
      pages++;
    }
    expect(seen).toHaveLength(4);
    expect(new Set(seen).size).toBe(4);
    const second = await call(`${path()}?limit=2&offset=2`);
    expect(second.json.previous).toContain("offset=0");
    expect(second.json.next).toBeNull();
  });

  it("filters by distinct_id, email and search", async () => {
    expect((await call(`${path()}?distinct_id=bob`)).json.results.map((p: any) => p.name)).toEqual(["bob@example.com"]);
    expect((await call(`${path()}?distinct_id=nobody`)).json.results).toEqual([]);
    expect((await call(`${path()}?email=alice@example.com`)).json.count).toBe(1);
    expect((await call(`${path()}?search=ALICE`)).json.count).toBe(1);
    expect((await call(`${path()}?search=example.com`)).json.count).toBe(2);
    expect((await call(`${path()}?search=aaaa-7000`)).json.count).toBe(1);
    expect((await call(`${path()}?search=car`)).json.count).toBe(1);
  });

  const names = async (filters: unknown) => {
    const res = await call(`${path()}?properties=${encodeURIComponent(JSON.stringify(filters))}`);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    return res.json.results.map((p: any) => p.distinct_ids[0]).sort();
  };

  it("applies PostHog's property operators", async () => {
    expect(await names([{ key: "plan", value: "pro", type: "person" }])).toEqual(["alice"]);
    expect(await names([{ key: "plan", value: ["pro", "free"], operator: "exact" }])).toEqual(["alice", "bob"]);
    expect(await names([{ key: "plan", value: "pro", operator: "is_not" }])).toEqual(["bob", "carol", "dave"]);
    expect(await names([{ key: "plan", value: "PRO", operator: "icontains" }])).toEqual(["alice", "carol"]);
    expect(await names([{ key: "plan", value: "pro", operator: "not_icontains" }])).toEqual(["bob", "dave"]);
    expect(await names([{ key: "plan", value: "^P", operator: "regex" }])).toEqual(["carol"]);
    expect(await names([{ key: "plan", value: "^(pro|free)$", operator: "regex" }])).toEqual(["alice", "bob"]);
    expect(await names([{ key: "email", value: "^[a-c]\\w.+@example\\.com$", operator: "regex" }])).toEqual([
      "alice",
      "bob",
    ]);
    expect(await names([{ key: "plan", value: "o$", operator: "not_regex" }])).toEqual(["bob", "carol", "dave"]);
    expect(await names([{ key: "age", value: 30, operator: "gt" }])).toEqual(["alice", "carol"]);
    expect(await names([{ key: "age", value: 25, operator: "gte" }])).toEqual(["alice", "bob", "carol"]);
    expect(await names([{ key: "age", value: "31", operator: "lt" }])).toEqual(["bob"]);
    expect(await names([{ key: "age", value: 31, operator: "lte" }])).toEqual(["alice", "bob"]);
    expect(await names([{ key: "email", value: "is_set", operator: "is_set" }])).toEqual(["alice", "bob"]);
    expect(await names([{ key: "email", operator: "is_not_set" }])).toEqual(["carol", "dave"]);
    expect(await names([{ key: "signup", value: "2024-01-01", operator: "is_date_after" }])).toEqual(["alice"]);
    expect(await names([{ key: "signup", value: "2024-01-01", operator: "is_date_before" }])).toEqual(["bob"]);
    expect(await names([{ key: "signup", value: "2023-06-15", operator: "is_date_exact" }])).toEqual(["bob"]);
    expect(await names([{ key: "beta", value: true }])).toEqual(["alice"]);
    expect(await names([{ key: "beta", value: ["true"], operator: "in" }])).toEqual(["alice"]);
    expect(await names([{ key: "plan", value: ["pro", "free"], operator: "not_in" }])).toEqual(["carol", "dave"]);
  });

  it("combines filters with AND/OR groups", async () => {
    expect(
      await names({
        type: "OR",
        values: [
          { key: "plan", value: "free" },
          { key: "name", value: "Carol" },
        ],
      }),
    ).toEqual(["bob", "carol"]);
    expect(
      await names({
        type: "AND",
        values: [
          { key: "age", value: 20, operator: "gt" },
          {
            type: "OR",
            values: [
              { key: "plan", value: "pro" },
              { key: "plan", value: "free" },
            ],
          },
        ],
      }),
    ).toEqual(["alice", "bob"]);
  });

  it("rejects unparsable or unsupported filters with 400", async () => {
    const bad = await call(`${path()}?properties=${encodeURIComponent("[{")}`);
    expect(bad.status).toBe(400);
    expect(envelope(bad).detail).toBe("Properties are unparsable!");
    for (const f of [
      [{ key: "a", value: "x", operator: "nope" }],
      [{ key: "a", value: "(?=x)", operator: "regex" }],
      [{ key: "a", value: "ab*", operator: "regex" }],
      [{ key: "a", value: "\\d+", operator: "regex" }],
      [{ key: "a", value: "abc", operator: "gt" }],
      [{ key: "a", value: "not a date", operator: "is_date_after" }],
      [{ key: "a", value: 1, type: "group" }],
      [{ value: 1 }],
    ]) {
      const res = await call(`${path()}?properties=${encodeURIComponent(JSON.stringify(f))}`);
      expect(res.status, JSON.stringify(f)).toBe(400);
      expect(envelope(res).type).toBe("validation_error");
    }
  });

  it("answers CSV with flattened, sorted columns", async () => {
    const res = await call(`${path()}?format=csv`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/csv");
    const lines = res.text.trimEnd().split("\r\n");
    expect(lines).toHaveLength(5);
    const header = lines[0].split(",");
    expect(header).toEqual([...header].sort());
    expect(header).toContain("properties.email");
    expect(header).toContain("distinct_ids.1");
  });

  it("refuses bad limits", async () => {
    expect((await call(`${path()}?limit=abc`)).status).toBe(400);
    expect((await call(`${path()}?limit=0`)).status).toBe(400);
  });

  it("refuses an offset past JavaScript's exact integers, in the envelope naming it", async () => {
    const res = await call(`${path()}?offset=1e21&search=a`);
    expect(res.status).toBe(400);
    expect(envelope(res).attr).toBe("offset");
    expect((await call(`${path()}?offset=${Number.MAX_SAFE_INTEGER}&search=a`)).status).toBe(200);
  });
});

describe("persons retrieve", () => {
  it("retrieves by integer id and by uuid, in the PersonSerializer shape", async () => {
    const person = (await personByDistinctId(project.id, "alice"))!;
    const byId = await call(path(`${person.id}/`));
    expect(byId.status).toBe(200);
    expect(Object.keys(byId.json)).toEqual(["id", "name", "distinct_ids", "properties", "created_at", "uuid"]);
    expect(byId.json.name).toBe("alice@example.com");
    expect(byId.json.created_at).toBe("2024-01-01T00:00:00.000Z");
    const byUuid = await call(path(person.uuid));
    expect(byUuid.json).toEqual(byId.json);
  });

  it("answers 400 for a non-id and 404 for an unknown or foreign person", async () => {
    const bad = await call(path("alice/"));
    expect(bad.status).toBe(400);
    expect(envelope(bad).detail).toContain("does not look like a personID");
    expect((await call(path("999999/"))).status).toBe(404);
    const other = await createProject();
    const person = (await personByDistinctId(project.id, "alice"))!;
    expect((await call(personsPath(other.id, `${person.id}/`))).status).toBe(404);
    expect((await call(`/api/projects/${project.id}/persons/${person.id}/`)).status).toBe(200);
  });

  it("needs person:read", async () => {
    const key = await createKey(["cohort:read"]);
    const res = await call(path(), { key });
    expect(res.status).toBe(403);
    expect(envelope(res).detail).toBe("API key missing required scope 'person:read'");
    const ok = await createKey(["person:read"]);
    expect((await call(path(), { key: ok })).status).toBe(200);
    const other = await createProject();
    const scoped = await createKey(["person:read"], [other.id]);
    expect((await call(path(), { key: scoped })).status).toBe(403);
  });
});
