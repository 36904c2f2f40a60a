import { beforeAll, describe, expect, it } from "vitest";
import { call, createProject } from "../helpers";
import { captureJourneys } from "../conformance/analysis-helpers";

/**
 * Trends in the project's time zone (America/New_York: clocks go forward at 02:00 on 10 March 2024
 * and back at 02:00 on 3 November 2024), on local days, hours, weeks (Sunday or Monday) and months.
 */
let project: { id: number; api_token: string };

const trends = async (query: Record<string, unknown>) => {
  const res = await call(`/api/environments/${project.id}/query/`, {
    method: "POST",
    body: { query: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "ping" }], ...query } },
  });
  expect(res.status, res.text).toBe(200);
  return res.json.results[0];
};

beforeAll(async () => {
  project = await createProject(undefined, "America/New_York");
  const ping = (timestamp: string) => ({ event: "ping", timestamp });
  await captureJourneys(project.api_token, {
    a: [
      ping("2024-03-09T04:30:00Z"), // 8 Mar 23:30 EST
      ping("2024-03-09T05:30:00Z"), // 9 Mar 00:30 EST
      ping("2024-03-10T06:30:00Z"), // 10 Mar 01:30 EST
      ping("2024-03-10T07:30:00Z"), // 10 Mar 03:30 EDT (02:00 was skipped)
      ping("2024-03-11T03:59:00Z"), // 10 Mar 23:59 EDT
      ping("2024-03-11T04:00:00Z"), // 11 Mar 00:00 EDT
      ping("2024-11-03T05:30:00Z"), // 3 Nov 01:30 EDT
      ping("2024-11-03T06:30:00Z"), // 3 Nov 01:30 EST (the hour happens twice)
    ],
  });
});

describe("trends in the project's time zone", () => {
  it("buckets local days, a 23-hour day included", async () => {
    const s = await trends({ dateRange: { date_from: "2024-03-08", date_to: "2024-03-11" } });
    expect(s.days).toEqual(["2024-03-08", "2024-03-09", "2024-03-10", "2024-03-11"]);
    expect(s.data).toEqual([1, 1, 3, 1]);
    expect(s.filter.date_from).toBe("2024-03-08T00:00:00-05:00");
    expect(s.filter.date_to).toBe("2024-03-11T23:59:59.999999-04:00");
  });

  it("buckets local hours across both changes of the clocks", async () => {
    const spring = await trends({
      interval: "hour",
      dateRange: { date_from: "2024-03-10 00:00", date_to: "2024-03-10 04:00" },
    });
    expect(spring.labels).toEqual(["10-Mar 00:00", "10-Mar 01:00", "10-Mar 03:00", "10-Mar 04:00"]);
    expect(spring.data).toEqual([0, 1, 1, 0]);
    const autumn = await trends({
      interval: "hour",
      dateRange: { date_from: "2024-11-03 00:00", date_to: "2024-11-03 02:00" },
    });
    // 01:00 happens twice: two buckets with the same label, one event each.
    expect(autumn.labels).toEqual(["3-Nov 00:00", "3-Nov 01:00", "3-Nov 01:00", "3-Nov 02:00"]);
    expect(autumn.data).toEqual([0, 1, 1, 0]);
  });

  it("starts weeks on the project's week_start_day and labels them within the range", async () => {
    const range = { dateRange: { date_from: "2024-03-06", date_to: "2024-03-12" }, interval: "week" };
    const sunday = await trends(range);
    expect(sunday.days).toEqual(["2024-03-03", "2024-03-10"]);
    expect(sunday.labels).toEqual(["6–9 Mar", "10–12 Mar"]);
    expect(sunday.data).toEqual([2, 4]);
    await call(`/api/projects/${project.id}/`, { method: "PATCH", body: { week_start_day: 1 } });
    const monday = await trends(range);
    expect(monday.days).toEqual(["2024-03-04", "2024-03-11"]);
    expect(monday.labels).toEqual(["6–10 Mar", "11–12 Mar"]);
    expect(monday.data).toEqual([5, 1]);
    await call(`/api/projects/${project.id}/`, { method: "PATCH", body: { week_start_day: 0 } });
  });

  it("buckets local months and keeps exact bounds with explicitDate", async () => {
    const months = await trends({ interval: "month", dateRange: { date_from: "2024-02-15", date_to: "2024-11-30" } });
    expect(months.labels[0]).toBe("Feb 2024");
    expect(months.days.at(-1)).toBe("2024-11-01");
    expect(months.data[1]).toBe(6); // March
    expect(months.data.at(-1)).toBe(2); // November
    const exact = await trends({
      dateRange: { date_from: "2024-03-10T01:00:00-05:00", date_to: "2024-03-10T23:00:00-04:00", explicitDate: true },
    });
    expect(exact.data).toEqual([2]); // 01:30 and 03:30 on the 10th, not 23:59
  });
});
