import { PostHog } from "posthog-node";
import { beforeAll, describe, expect, it } from "vitest";
import { api, newProject, workerUrl } from "./client";

/**
 * posthog-node's getRemoteConfigPayload calls /api/projects/@current/feature_flags/<key>/remote_config
 * with `?token=`: `@current` must name the token's project, even for a key reaching several.
 */
let project: { id: number; api_token: string };
let key: string;

beforeAll(async () => {
  project = await newProject();
  const other = await newProject();
  key = (
    await api("/api/personal_api_keys/", {
      method: "POST",
      body: { label: "remote config", scopes: ["feature_flag:read"], scoped_teams: [other.id, project.id] },
    })
  ).json.value;
  const flag = await api(`/api/projects/${project.id}/feature_flags/`, {
    method: "POST",
    body: {
      key: "theme",
      is_remote_configuration: true,
      filters: {
        groups: [{ properties: [], rollout_percentage: 100 }],
        payloads: { true: '{"color": "teal", "size": 3}' },
      },
    },
  });
  expect(flag.status).toBe(201);
});

describe("posthog-node remote config", () => {
  it("getRemoteConfigPayload returns the payload of a remote-configuration flag", async () => {
    const client = new PostHog(project.api_token, {
      host: workerUrl(),
      personalApiKey: key,
      flushAt: 1,
      enableLocalEvaluation: false,
    });
    const errors: unknown[] = [];
    client.on("error", (err) => errors.push(err));
    try {
      expect(await client.getRemoteConfigPayload("theme")).toEqual({ color: "teal", size: 3 });
    } finally {
      await client.shutdown();
    }
    expect(errors).toEqual([]);
  });
});
