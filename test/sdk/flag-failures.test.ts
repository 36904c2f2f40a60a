import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, createProject, createFlag as createProjectFlag } from "../helpers";

/**
 * One flag that cannot be evaluated fails alone (flag-eval.md §5 error records): the API refuses
 * malformed filters, so the broken flag's row is corrupted directly in D1 and the definitions are
 * rebuilt by an ordinary write to another flag.
 */
let project: { id: number; api_token: string };
const flags = (body: Record<string, unknown> = {}, version = 2) =>
  call(`/flags/?v=${version}`, {
    method: "POST",
    key: null,
    body: { token: project.api_token, distinct_id: "someone", ...body },
  });
const createFlag = (body: unknown): Promise<{ id: number }> => createProjectFlag(project.id, body);

beforeAll(async () => {
  project = await createProject();
  const fine = await createFlag({ key: "fine", filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
  const variants = [
    { key: "a", rollout_percentage: 50 },
    { key: "b", rollout_percentage: 50 },
  ];
  const broken = await createFlag({
    key: "broken",
    filters: { groups: [{ properties: [], rollout_percentage: 100 }], multivariate: { variants } },
  });
  await createFlag({
    key: "needs-broken",
    filters: {
      groups: [{ properties: [{ key: String(broken.id), type: "flag", operator: "flag_evaluates_to", value: true }] }],
    },
  });
  // A variant that is not an object: evaluating the matched condition throws.
  const malformed = { groups: [{ properties: [], rollout_percentage: 100 }], multivariate: { variants: [null] } };
  await env.DB.prepare("UPDATE feature_flags SET filters = ? WHERE id = ?")
    .bind(JSON.stringify(malformed), broken.id)
    .run();
  const touch = await call(`/api/projects/${project.id}/feature_flags/${fine.id}/`, {
    method: "PATCH",
    body: { name: "still fine" },
  });
  expect(touch.status).toBe(200);
});

describe("/flags with a flag that fails", () => {
  it("answers the other flags and marks the failing one and its dependents failed (v2)", async () => {
    const res = await flags();
    expect(res.status).toBe(200);
    expect(res.json.errorsWhileComputingFlags).toBe(true);
    const { fine, broken } = res.json.flags;
    expect(fine).toMatchObject({ enabled: true, reason: { code: "condition_match", condition_index: 0 } });
    expect(fine.failed).toBeUndefined();
    expect(broken).toMatchObject({
      key: "broken",
      enabled: false,
      variant: null,
      failed: true,
      reason: { code: "evaluation_error", condition_index: null },
    });
    expect(broken.reason.description).toEqual(expect.any(String));
    expect(broken.metadata.payload).toBeNull();
    expect(res.json.flags["needs-broken"]).toMatchObject({
      enabled: false,
      failed: true,
      reason: { code: "dependency_failed" },
    });
  });

  it("legacy responses report the failure and the failing flag as false", async () => {
    const res = await flags({}, 1);
    expect(res.status).toBe(200);
    expect(res.json.errorsWhileComputingFlags).toBe(true);
    expect(res.json.featureFlags).toEqual({ fine: true, broken: false, "needs-broken": false });
  });

  it("a request that does not ask for the failing flag has no error", async () => {
    const res = await flags({ flag_keys_to_evaluate: ["fine"] });
    expect(res.json.errorsWhileComputingFlags).toBe(false);
    expect(Object.keys(res.json.flags)).toEqual(["fine"]);
  });
});
