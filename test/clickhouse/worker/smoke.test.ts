import { describe, expect, it } from "vitest";
import { call, createProject } from "../../helpers";

import { seedClickHouse } from "../seed";
import { clickhouse } from "./client";

describe("smoke", () => {
  it("runs an endpoint on ClickHouse", async () => {
    const project = (await createProject()).id;
    await seedClickHouse(clickhouse(), project, {
      events: [
        { event: "a", distinctId: "x", timestamp: "2026-01-01T00:00:00.000Z" },
        { event: "a", distinctId: "y", timestamp: "2026-01-01T00:00:00.000Z" },
      ],
    });
    const created = await call(`/api/environments/${project}/endpoints/`, {
      method: "POST",
      body: {
        name: "n",
        query: { kind: "HogQLQuery", query: "select event, count() as c from events group by event" },
      },
    });
    expect(created.status).toBe(201);
    const res = await call(`/api/environments/${project}/endpoints/n/run`);
    expect(res.json).toMatchObject({ results: [["a", 2]] });
  });
});
