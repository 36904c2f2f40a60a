import { PostHogAgentToolkit } from "@posthog/agent-toolkit";
import { beforeAll, describe, expect, it } from "vitest";
import { api, newProject, workerUrl } from "./client";

/**
 * @posthog/agent-toolkit (the tools of PostHog's MCP server), unmodified, against the running
 * worker: it reads the key at /api/personal_api_keys/@current to decide which tools to offer, asks
 * /api/users/@me/ for its project, then manages flags through the flags API. Each tool is called
 * as an assistant would call it, and the worker's own API then shows the effect.
 */
const FLAG_TOOLS = [
  "create-feature-flag",
  "feature-flag-get-all",
  "feature-flag-get-definition",
  "update-feature-flag",
  "delete-feature-flag",
];

type Tool = Awaited<ReturnType<PostHogAgentToolkit["getTools"]>>[number];

async function toolkitFor(key: string) {
  const toolkit = new PostHogAgentToolkit({ posthogApiToken: key, posthogApiBaseUrl: workerUrl() });
  const tools = await toolkit.getTools();
  const context = toolkit.getContext();
  const call = async (name: string, args: Record<string, unknown>): Promise<string> => {
    const tool = tools.find((t: Tool) => t.name === name);
    if (!tool) throw new Error(`tool ${name} not offered`);
    const result = await tool.handler(context, tool.schema.parse(args) as never);
    return result.content.map((part: { text: string }) => part.text).join("\n");
  };
  return { names: tools.map((t: Tool) => t.name), call };
}

let project: { id: number; api_token: string };
const flagsOf = async () =>
  (await api(`/api/projects/${project.id}/feature_flags/`)).json.results as {
    id: number;
    key: string;
    active: boolean;
    filters: any;
  }[];

beforeAll(async () => {
  project = await newProject();
});

describe("@posthog/agent-toolkit", () => {
  it("offers the flag tools to a key with feature_flag:write, and only read tools to a read key", async () => {
    const writer = await api("/api/personal_api_keys/", {
      method: "POST",
      body: { label: "mcp", scopes: ["feature_flag:write"], scoped_teams: [project.id] },
    });
    expect((await toolkitFor(writer.json.value)).names).toEqual(expect.arrayContaining(FLAG_TOOLS));
    const reader = await api("/api/personal_api_keys/", {
      method: "POST",
      body: { label: "mcp-read", scopes: ["feature_flag:read"], scoped_teams: [project.id] },
    });
    const readTools = (await toolkitFor(reader.json.value)).names;
    expect(readTools).toEqual(expect.arrayContaining(["feature-flag-get-all", "feature-flag-get-definition"]));
    expect(readTools).not.toContain("create-feature-flag");
  });

  it("creates, lists, reads, updates and deletes a flag end to end", async () => {
    const key = (
      await api("/api/personal_api_keys/", {
        method: "POST",
        body: { label: "assistant", scopes: ["feature_flag:write"], scoped_teams: [project.id] },
      })
    ).json.value;
    const { call } = await toolkitFor(key);

    const created = JSON.parse(
      await call("create-feature-flag", {
        name: "Beta checkout",
        key: "beta-checkout",
        description: "made by an assistant",
        active: true,
        filters: {
          groups: [
            { properties: [{ key: "email", value: "example.com", operator: "icontains" }], rollout_percentage: 50 },
          ],
        },
      }),
    );
    expect(created).toMatchObject({ key: "beta-checkout", name: "Beta checkout", active: true });
    const stored = (await flagsOf()).find((f) => f.key === "beta-checkout")!;
    expect(stored.filters.groups[0]).toMatchObject({
      rollout_percentage: 50,
      properties: [{ key: "email", value: "example.com", operator: "icontains", type: "person" }],
    });

    const listed = JSON.parse(await call("feature-flag-get-all", {}));
    expect(listed.map((f: { key: string }) => f.key)).toContain("beta-checkout");

    const definition = JSON.parse(await call("feature-flag-get-definition", { flagKey: "beta-checkout" }));
    expect(definition).toMatchObject({ id: stored.id, key: "beta-checkout", name: "Beta checkout", active: true });

    await call("update-feature-flag", {
      flagKey: "beta-checkout",
      data: { active: false, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } },
    });
    const updated = (await flagsOf()).find((f) => f.key === "beta-checkout")!;
    expect(updated.active).toBe(false);
    expect(updated.filters.groups[0].rollout_percentage).toBe(100);

    expect(JSON.parse(await call("delete-feature-flag", { flagKey: "beta-checkout" }))).toMatchObject({
      success: true,
    });
    expect((await flagsOf()).map((f) => f.key)).not.toContain("beta-checkout");
    expect((await api(`/api/projects/${project.id}/feature_flags/${stored.id}/`)).json.deleted).toBe(true);
    expect(await call("feature-flag-get-definition", { flagKey: "beta-checkout" })).toMatch(/not found/);
  });
});
