import { PostHog } from "posthog-node";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { api, newProject, workerUrl } from "./client";

/** posthog-node, unmodified, pointed at the running worker; the persons API then shows what it sent. */
let project: { id: number; api_token: string };
const persons = (rest = "") => `/api/environments/${project.id}/persons/${rest}`;

beforeAll(async () => {
  project = await newProject();
});

async function withClient(options: Record<string, unknown>, use: (client: PostHog) => void | Promise<void>) {
  const client = new PostHog(project.api_token, { host: workerUrl(), flushAt: 1000, flushInterval: 0, ...options });
  const errors: unknown[] = [];
  client.on("error", (err) => errors.push(err));
  await use(client);
  await client.shutdown();
  expect(errors).toEqual([]);
}

describe("posthog-node interop", () => {
  it("captures anonymous events, then $identify merges them into the identified person with its properties", async () => {
    await withClient({}, (client) => {
      client.capture({
        distinctId: "anon-node-1",
        event: "page viewed",
        properties: { $set: { first_page: "/pricing" } },
      });
      client.capture({ distinctId: "anon-node-1", event: "signup started" });
    });
    await withClient({}, (client) => {
      client.identify({
        distinctId: "user-node-1",
        properties: { $anon_distinct_id: "anon-node-1", email: "node@example.com" },
      });
      client.capture({
        distinctId: "user-node-1",
        event: "signup finished",
        properties: { $set: { plan: "pro" }, $set_once: { first_plan: "pro" } },
      });
    });

    const list = await api(`${persons()}?distinct_id=anon-node-1`);
    expect(list.status).toBe(200);
    expect(list.json.results).toHaveLength(1);
    const listed = list.json.results[0];
    expect(listed.distinct_ids.sort()).toEqual(["anon-node-1", "user-node-1"]);
    expect(listed.is_identified).toBe(true);
    expect(listed.name).toBe("node@example.com");

    const person = await api(persons(`${listed.uuid}/`));
    expect(person.json.properties).toMatchObject({
      first_page: "/pricing",
      email: "node@example.com",
      plan: "pro",
      first_plan: "pro",
    });
    const byId = await api(persons(`${person.json.id}/`));
    expect(byId.json.uuid).toBe(listed.uuid);
  });

  it("setPersonProperties / unsetPersonProperties and alias reach the person (uncompressed too)", async () => {
    await withClient({ disableCompression: true }, (client) => {
      client.capture({ distinctId: "node-2", event: "hello" });
      client.setPersonProperties({
        distinctId: "node-2",
        properties: { color: "blue", size: 3 },
        propertiesOnce: { origin: "node" },
      });
      client.unsetPersonProperties({ distinctId: "node-2", properties: ["size"] });
      client.alias({ distinctId: "node-2", alias: "node-2-alias" });
    });
    const list = await api(`${persons()}?distinct_id=node-2-alias`);
    expect(list.json.results).toHaveLength(1);
    expect(list.json.results[0].properties).toEqual({ color: "blue", origin: "node" });
  });

  it("filters, CSV and the group identify path work on SDK-created data", async () => {
    await withClient({}, (client) => {
      client.groupIdentify({ groupType: "company", groupKey: "acme", properties: { name: "Acme" } });
    });
    const props = encodeURIComponent(
      JSON.stringify([{ key: "email", value: "node@", operator: "icontains", type: "person" }]),
    );
    const filtered = await api(`${persons()}?properties=${props}`);
    expect(filtered.json.results.map((p: any) => p.name)).toEqual(["node@example.com"]);
    const csv = await fetch(`${workerUrl()}${persons()}?format=csv`, {
      headers: { authorization: `Bearer ${inject("rootKey")}` },
    });
    expect(csv.headers.get("content-type")).toContain("text/csv");
    expect((await csv.text()).split("\r\n")[0]).toContain("properties.email");
  });
});
