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

  it("asks questions of the data: query-run (Trends, Funnels and HogQL), event-definitions-list, properties-list", async () => {
    const own = await newProject();
    const batch = [
      ["ann", "$pageview", "2024-03-01T10:00:00Z", { $browser: "Chrome" }],
      ["bob", "$pageview", "2024-03-01T11:00:00Z", { $browser: "Firefox" }],
      ["ann", "$pageview", "2024-03-02T10:00:00Z", { $browser: "Chrome" }],
      ["ann", "signed up", "2024-03-02T10:05:00Z", { plan: "pro", $set: { email: "ann@example.com" } }],
    ].map(([distinct_id, event, timestamp, properties]) => ({ distinct_id, event, timestamp, properties }));
    expect((await api("/batch/", { method: "POST", key: null, body: { api_key: own.api_token, batch } })).status).toBe(
      200,
    );

    // Only the scopes the three tools declare.
    const key = (
      await api("/api/personal_api_keys/", {
        method: "POST",
        body: {
          label: "analyst",
          scopes: ["query:read", "event_definition:read", "property_definition:read"],
          scoped_teams: [own.id],
        },
      })
    ).json.value;
    const { names, call } = await toolkitFor(key);
    expect(names).toEqual(expect.arrayContaining(["query-run", "event-definitions-list", "properties-list"]));

    const trends = JSON.parse(
      await call("query-run", {
        query: {
          kind: "InsightVizNode",
          source: {
            kind: "TrendsQuery",
            series: [{ kind: "EventsNode", event: "$pageview", custom_name: "Page views", math: "dau" }],
            dateRange: { date_from: "2024-03-01", date_to: "2024-03-02" },
            breakdownFilter: { breakdown: "$browser", breakdown_type: "event" },
          },
        },
      }),
    );
    expect(trends.map((s: { breakdown_value: string; data: number[] }) => [s.breakdown_value, s.data])).toEqual([
      ["Chrome", [1, 1]],
      ["Firefox", [1, 0]],
    ]);

    // The toolkit's funnel schema: steps as EventsNode, the window in funnelsFilter.
    const funnel = JSON.parse(
      await call("query-run", {
        query: {
          kind: "InsightVizNode",
          source: {
            kind: "FunnelsQuery",
            series: [
              { kind: "EventsNode", event: "$pageview", custom_name: "Viewed" },
              { kind: "EventsNode", event: "signed up", custom_name: "Signed up" },
            ],
            dateRange: { date_from: "2024-03-01", date_to: "2024-03-02" },
            funnelsFilter: { funnelWindowInterval: 1, funnelWindowIntervalUnit: "day", funnelOrderType: "ordered" },
          },
        },
      }),
    );
    // ann views and signs up (her second view, 5 minutes before); bob only views.
    expect(
      funnel.map((s: { name: string; custom_name: string; count: number }) => [s.name, s.custom_name, s.count]),
    ).toEqual([
      ["$pageview", "Viewed", 2],
      ["signed up", "Signed up", 1],
    ]);
    expect(funnel[1].average_conversion_time).toBe(300);

    const hogql = JSON.parse(
      await call("query-run", {
        query: {
          kind: "DataVisualizationNode",
          source: { kind: "HogQLQuery", query: "select event, count() from events group by event order by event" },
        },
      }),
    );
    expect(hogql).toEqual([
      ["$pageview", 3],
      ["signed up", 1],
    ]);

    const events = JSON.parse(await call("event-definitions-list", {}));
    expect(events.map((e: { name: string }) => e.name).sort()).toEqual(["$pageview", "signed up"]);

    const eventProps = JSON.parse(
      await call("properties-list", { type: "event", eventName: "signed up", includePredefinedProperties: false }),
    );
    expect(eventProps).toEqual([{ name: "plan", property_type: "String" }]);
    const personProps = JSON.parse(
      await call("properties-list", { type: "person", includePredefinedProperties: true }),
    );
    expect(personProps).toEqual([{ name: "email", property_type: "String" }]);
  });
});
