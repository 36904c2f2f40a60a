import { beforeAll, describe, expect, it } from "vitest";
import { call, createKey, createProject, envelope } from "../helpers";

let pid: number;
const base = () => `/api/projects/${pid}/feature_flags`;
const create = (body: unknown) => call(`${base()}/`, { method: "POST", body });

beforeAll(async () => {
  pid = (await createProject()).id;
});

describe("feature flag CRUD", () => {
  it("creates with defaults and the full record", async () => {
    const res = await create({ key: "plain-flag" });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      key: "plain-flag",
      name: "",
      active: true,
      deleted: false,
      version: 1,
      status: "ACTIVE",
      filters: { groups: [{ properties: [], rollout_percentage: null }] },
      experiment_set: [],
      tags: [],
      evaluation_runtime: "all",
      bucketing_identifier: "distinct_id",
      last_called_at: null,
    });
    for (const field of [
      "created_by",
      "created_at",
      "updated_at",
      "last_modified_by",
      "can_edit",
      "usage_dashboard",
      "user_access_level",
      "has_encrypted_payloads",
    ]) {
      expect(res.json).toHaveProperty(field);
    }
  });

  it("validates the key: required, unique among live flags, pattern", async () => {
    expect(envelope(await create({ name: "x" }))).toMatchObject({ code: "required", attr: "key" });
    await create({ key: "dup" });
    expect(envelope(await create({ key: "dup" }))).toEqual({
      type: "validation_error",
      code: "unique",
      detail: "There is already a feature flag with this key.",
      attr: "key",
    });
    expect(envelope(await create({ key: "bad key!" }))).toMatchObject({ code: "invalid_key", attr: "key" });
  });

  it("validates filters", async () => {
    const variants = (a: number, b: number) => ({
      groups: [{ rollout_percentage: 100 }],
      multivariate: {
        variants: [
          { key: "a", rollout_percentage: a },
          { key: "b", rollout_percentage: b },
        ],
      },
    });
    expect(envelope(await create({ key: "mv", filters: variants(50, 40) }))).toMatchObject({
      code: "invalid_input",
      detail: "Invalid variant definitions: Variant rollout percentages must sum to 100.",
      attr: "filters",
    });
    expect((await create({ key: "mv", filters: variants(50, 50) })).status).toBe(201);
    expect(envelope(await create({ key: "nogroups", filters: { groups: [] } })).detail).toBe(
      "Feature flags must have at least one condition set (group).",
    );
    expect(envelope(await create({ key: "r", filters: { groups: [{ rollout_percentage: 150 }] } })).detail).toBe(
      "groups[0].rollout_percentage must be between 0 and 100, got 150",
    );
    expect(
      envelope(
        await create({ key: "c", filters: { groups: [{ properties: [{ key: "id", type: "cohort", value: 5151 }] }] } }),
      ),
    ).toMatchObject({
      code: "cohort_does_not_exist",
      detail: "Cohort with id 5151 does not exist",
    });
    expect(
      envelope(
        await create({
          key: "o",
          filters: { groups: [{ properties: [{ key: "a", type: "person", operator: "nope", value: 1 }] }] },
        }),
      ).attr,
    ).toBe("filters");
    expect(envelope(await create({ key: "p", filters: { groups: [{}], payloads: { nope: "1" } } })).detail).toBe(
      "Payload keys must be 'true' for boolean flags",
    );
    expect(
      envelope(
        await create({
          key: "g",
          filters: { groups: [{ properties: [{ key: "a", type: "group", group_type_index: 0, value: 1 }] }] },
        }),
      ).detail,
    ).toBe("Filters are not valid (can only use person, cohort, and flag properties)");
    expect(
      envelope(
        await create({
          key: "dep",
          filters: {
            groups: [{ properties: [{ key: "99999", type: "flag", operator: "flag_evaluates_to", value: true }] }],
          },
        }),
      ).detail,
    ).toBe("Flag dependency references non-existent flag with ID 99999");
  });

  it("validates operators, dates, values and field types", async () => {
    const prop = (p: Record<string, unknown>) => ({ groups: [{ properties: [{ key: "a", type: "person", ...p }] }] });
    expect(envelope(await create({ key: "in", filters: prop({ operator: "in", value: 1 }) }))).toMatchObject({
      code: "invalid_operator",
      detail: "The 'in' operator is only valid for cohort properties, not 'person' properties.",
    });
    expect(
      envelope(await create({ key: "date", filters: prop({ operator: "is_date_before", value: "someday" }) })),
    ).toMatchObject({ code: "invalid_date", detail: "Invalid date value: someday" });
    expect(
      (await create({ key: "rel-date", filters: prop({ operator: "is_date_after", value: "-30d" }) })).status,
    ).toBe(201);
    expect(
      envelope(await create({ key: "list", filters: prop({ operator: "icontains", value: ["@posthog.com"] }) })),
    ).toMatchObject({
      code: "invalid_value",
      detail: 'Invalid value for operator icontains: ["@posthog.com"]',
    });
    expect(envelope(await create({ key: "override", filters: { groups: [{ variant: "nope" }] } })).detail).toBe(
      "Filters are not valid (variant override does not exist)",
    );
    expect(envelope(await create({ key: "types", active: "yes" })).attr).toBe("active");
    expect(envelope(await create({ key: "evtags", tags: ["a"], evaluation_tags: ["b"] })).attr).toBe("evaluation_tags");
  });

  it("detects dependency cycles and blocks deleting a dependency", async () => {
    const a = (await create({ key: "cyc-a" })).json;
    const b = (
      await create({
        key: "cyc-b",
        filters: {
          groups: [{ properties: [{ key: String(a.id), type: "flag", operator: "flag_evaluates_to", value: true }] }],
        },
      })
    ).json;
    const res = await call(`${base()}/${a.id}/`, {
      method: "PATCH",
      body: {
        filters: {
          groups: [{ properties: [{ key: String(b.id), type: "flag", operator: "flag_evaluates_to", value: true }] }],
        },
      },
    });
    expect(envelope(res).detail).toBe("Circular dependency detected: cyc-a → cyc-b → cyc-a");
    const del = await call(`${base()}/${a.id}/`, { method: "PATCH", body: { deleted: true } });
    expect(envelope(del).detail).toMatch(/^Cannot delete this feature flag because other flags depend on it: cyc-b/);
  });

  it("sees a dependency written with a leading zero when the target is deleted", async () => {
    const target = (await create({ key: "zero-target" })).json;
    const ref = `0${target.id}`;
    const dependent = await create({
      key: "zero-dependent",
      filters: { groups: [{ properties: [{ key: ref, type: "flag", operator: "flag_evaluates_to", value: true }] }] },
    });
    expect(dependent.status, dependent.text).toBe(201);
    const del = await call(`${base()}/${target.id}/`, { method: "PATCH", body: { deleted: true } });
    expect(envelope(del).detail).toMatch(
      /^Cannot delete this feature flag because other flags depend on it: zero-dependent/,
    );
  });

  it("updates bump the version; a stale version is 409; PUT needs key", async () => {
    const flag = (await create({ key: "versioned" })).json;
    const p1 = await call(`${base()}/${flag.id}/`, { method: "PATCH", body: { name: "first", version: 1 } });
    expect(p1.json).toMatchObject({ version: 2, name: "first" });
    const stale = await call(`${base()}/${flag.id}/`, { method: "PATCH", body: { name: "second", version: 1 } });
    expect(stale.status).toBe(409);
    expect(envelope(stale)).toMatchObject({ type: "server_error", code: "conflict" });
    expect((await call(`${base()}/${flag.id}/`)).json.name).toBe("first");
    expect(envelope(await call(`${base()}/${flag.id}/`, { method: "PUT", body: { name: "x" } }))).toMatchObject({
      code: "required",
      attr: "key",
    });
    const put = await call(`${base()}/${flag.id}/`, {
      method: "PUT",
      body: { key: "versioned", name: "third", active: false },
    });
    expect(put.json).toMatchObject({ version: 3, name: "third", active: false });
  });

  it("soft deletes by PATCH and DELETE; deleted flags are retrievable but not listed; the key is freed", async () => {
    const a = (await create({ key: "gone-1" })).json;
    const b = (await create({ key: "gone-2" })).json;
    expect((await call(`${base()}/${a.id}/`, { method: "PATCH", body: { deleted: true } })).json.deleted).toBe(true);
    const del = await call(`${base()}/${b.id}/`, { method: "DELETE" });
    expect(del.status).toBe(204);
    expect(del.text).toBe("");
    const got = await call(`${base()}/${b.id}/`);
    expect(got.json).toMatchObject({ deleted: true, status: "DELETED" });
    const keys = (await call(`${base()}/?limit=1000`)).json.results.map((f: any) => f.key);
    expect(keys).not.toContain("gone-1");
    expect((await create({ key: "gone-1" })).status).toBe(201);
  });

  it("lists with search, active, type, tags and the limit/offset envelope", async () => {
    await create({ key: "list-search-one", tags: ["Alpha", "beta "] });
    await create({ key: "list-other", name: "Search me", active: false });
    await create({
      key: "list-mv",
      filters: { groups: [{}], multivariate: { variants: [{ key: "x", rollout_percentage: 100 }] } },
    });
    const search = (await call(`${base()}/?search=SEARCH`)).json;
    expect(search.results.map((f: any) => f.key).sort()).toEqual(["list-other", "list-search-one"]);
    const inactive = (await call(`${base()}/?active=false`)).json.results.map((f: any) => f.key);
    expect(inactive).toContain("list-other");
    expect(inactive).not.toContain("list-search-one");
    const mv = (await call(`${base()}/?type=multivariant`)).json.results.map((f: any) => f.key);
    expect(mv).toContain("list-mv");
    expect(mv).not.toContain("list-other");
    const tagged = (await call(`${base()}/?tags=${encodeURIComponent('["alpha"]')}`)).json;
    expect(tagged.results.map((f: any) => f.key)).toEqual(["list-search-one"]);
    expect(tagged.results[0].tags).toEqual(["alpha", "beta"]);
    const page = (await call(`${base()}/?limit=2&offset=1`)).json;
    expect(page.results.length).toBe(2);
    expect(page.next).toContain("offset=3");
    expect(page.previous).toContain("offset=0");
    expect((await call(`${base()}/?active=STALE`)).json.count).toBe(0);
  });

  it("answers 404 for unknown ids and other projects' flags", async () => {
    const other = await createProject();
    const flag = (await call(`/api/projects/${other.id}/feature_flags/`, { method: "POST", body: { key: "theirs" } }))
      .json;
    expect(envelope(await call(`${base()}/${flag.id}/`))).toMatchObject({ code: "not_found" });
    expect((await call(`${base()}/999999/`)).status).toBe(404);
  });

  it("enforces scopes", async () => {
    const reader = await createKey(["feature_flag:read"]);
    expect((await call(`${base()}/`, { key: reader })).status).toBe(200);
    const res = await call(`${base()}/`, { key: reader, method: "POST", body: { key: "nope" } });
    expect(res.status).toBe(403);
    expect(envelope(res).detail).toBe("API key missing required scope 'feature_flag:write'");
    const elsewhere = await createKey(["feature_flag:write"], [(await createProject()).id]);
    expect((await call(`${base()}/`, { key: elsewhere })).status).toBe(403);
  });
});
