import { env } from "cloudflare:workers";
import { createScheduledController } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import worker from "../../src/index";
import { expireEvents } from "../../src/scheduled";
import { seed } from "../endpoints/fixtures";
import { createProject } from "../helpers";

/** The test deployment with EVENT_RETENTION_DAYS set as given. */
const retention = (days: string | undefined) => ({ ...env, EVENT_RETENTION_DAYS: days }) as unknown as Env;
const NOW = Date.parse("2026-06-30T12:00:00.000Z");
const daysAgo = (days: number) => new Date(NOW - days * 24 * 60 * 60 * 1000).toISOString();

async function eventTimes(projectId: number) {
  const { results } = await env.DB.prepare("SELECT timestamp FROM events WHERE project_id = ? ORDER BY timestamp")
    .bind(projectId)
    .all<{ timestamp: string }>();
  return results.map((r) => r.timestamp);
}

async function projectWithEvents(ages: number[]) {
  const project = await createProject();
  await seed(project.id, { events: ages.map((age) => ({ event: "e", distinctId: "d", timestamp: daysAgo(age) })) });
  return project.id;
}

describe("event retention (EVENT_RETENTION_DAYS)", () => {
  it("deletes every project's events older than the setting, in chunks, and keeps the rest", async () => {
    const a = await projectWithEvents([400, 90, 31, 30.5, 29, 1]);
    const b = await projectWithEvents([45, 2]);
    const report = await expireEvents(retention("30"), NOW, 2, 100);
    expect(report).toEqual({ cutoff: daysAgo(30), deleted: 5, more: false });
    expect(await eventTimes(a)).toEqual([daysAgo(29), daysAgo(1)]);
    expect(await eventTimes(b)).toEqual([daysAgo(2)]);
  });

  it("stops at its chunk budget, oldest first, and the next run carries on", async () => {
    const a = await projectWithEvents([50, 49, 48, 47, 46, 1]);
    const settings = retention("30");
    // Each project costs at least one statement; those made by earlier tests have nothing old left.
    const before = await env.DB.prepare("SELECT count(*) AS n FROM projects WHERE id < ?").bind(a).first<number>("n");
    expect(await expireEvents(settings, NOW, 2, before! + 1)).toMatchObject({ deleted: 2, more: true });
    expect(await eventTimes(a)).toEqual([daysAgo(48), daysAgo(47), daysAgo(46), daysAgo(1)]);
    expect(await expireEvents(settings, NOW, 2, 100)).toMatchObject({ deleted: 3, more: false });
    expect(await eventTimes(a)).toEqual([daysAgo(1)]);
  });

  it("keeps everything when unset, and names the variable when it is not a number of days", async () => {
    const a = await projectWithEvents([4000]);
    expect(await expireEvents(retention(undefined), NOW)).toEqual({
      cutoff: null,
      deleted: 0,
      more: false,
    });
    expect(await eventTimes(a)).toHaveLength(1);
    await expect(expireEvents(retention("30d"), NOW)).rejects.toThrow(
      /EVENT_RETENTION_DAYS must be a whole number of days/,
    );
  });

  it("runs from the worker's cron trigger", async () => {
    const recent = new Date(Date.now() - 24 * 60 * 60 * 1000).toISOString();
    const old = new Date(Date.now() - 10 * 24 * 60 * 60 * 1000).toISOString();
    const project = await createProject();
    await seed(project.id, {
      events: [
        { event: "e", distinctId: "d", timestamp: old },
        { event: "e", distinctId: "d", timestamp: recent },
      ],
    });
    await worker.scheduled(createScheduledController(), retention("7"));
    expect(await eventTimes(project.id)).toEqual([recent]);
  });
});
