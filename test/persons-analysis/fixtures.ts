import { env } from "cloudflare:workers";
import { microsIso } from "../../src/analytics/clickhouse/rows";
import { insert } from "../clickhouse/seed";
import { clickhouse } from "../clickhouse/worker/client";
import { onClickHouse } from "../helpers";

/**
 * Seeds persons, distinct ids and events straight into D1 (matching src/db/schema.ts), so the
 * analysis tests do not depend on the capture API. Timestamps are ISO 8601 UTC with ms and `Z`.
 * On a ClickHouse deployment (the ClickHouse suite) the same rows also go where ingestion puts them:
 * the persons mirror (with the D1 id) and the events table, each event with its D1 uuid and a
 * created_at 1 µs after the previous one, as ingestion orders a request's events.
 */
export interface SeededPerson {
  id: number;
  uuid: string;
  distinctId: string;
}

export async function seedPerson(
  projectId: number,
  opts: { distinctId?: string; properties?: Record<string, unknown>; createdAt?: string } = {},
): Promise<SeededPerson> {
  const uuid = crypto.randomUUID();
  const distinctId = opts.distinctId ?? `user-${uuid.slice(0, 8)}`;
  const row = await env.DB.prepare(
    `INSERT INTO persons (project_id, uuid, properties, is_identified, created_at) VALUES (?1, ?2, ?3, 1, ?4) RETURNING id`,
  )
    .bind(projectId, uuid, JSON.stringify(opts.properties ?? {}), opts.createdAt ?? "2020-01-01T00:00:00.000Z")
    .first<{ id: number }>();
  await env.DB.prepare(`INSERT INTO person_distinct_ids (project_id, distinct_id, person_id) VALUES (?1, ?2, ?3)`)
    .bind(projectId, distinctId, row!.id)
    .run();
  if (onClickHouse) {
    const client = clickhouse();
    await insert(client, "person", [
      {
        id: uuid,
        d1_id: row!.id,
        team_id: projectId,
        created_at: opts.createdAt ?? "2020-01-01T00:00:00.000Z",
        properties: JSON.stringify(opts.properties ?? {}),
        is_identified: 1,
        version: 0,
      },
    ]);
    await insert(client, "person_distinct_id2", [
      { team_id: projectId, distinct_id: distinctId, person_id: uuid, version: 0 },
    ]);
  }
  return { id: row!.id, uuid, distinctId };
}

/** `[event, timestamp, properties?]`, stored in the given order (ties on timestamp keep that order). */
export type EventSpec = [string, string, Record<string, unknown>?];

export async function seedEvents(projectId: number, person: SeededPerson, list: EventSpec[]) {
  if (!list.length) return;
  const rows = list.map(([event, timestamp, properties]) => ({
    uuid: crypto.randomUUID(),
    event,
    properties: JSON.stringify(properties ?? {}),
    timestamp: new Date(timestamp).toISOString(),
  }));
  await env.DB.batch(
    rows.map((r) =>
      env.DB.prepare(
        `INSERT INTO events (project_id, uuid, event, distinct_id, person_id, properties, timestamp) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)`,
      ).bind(projectId, r.uuid, r.event, person.distinctId, person.id, r.properties, r.timestamp),
    ),
  );
  if (onClickHouse) {
    const base = Date.now() * 1000;
    await insert(
      clickhouse(),
      "events",
      rows.map((r, index) => ({
        ...r,
        team_id: projectId,
        distinct_id: person.distinctId,
        created_at: microsIso(base + index),
        person_id: person.uuid,
      })),
    );
  }
}

/** A person with events in one call. */
export async function personWith(projectId: number, list: EventSpec[], opts: Parameters<typeof seedPerson>[1] = {}) {
  const p = await seedPerson(projectId, opts);
  await seedEvents(projectId, p, list);
  return p;
}

/** The uuids of an actors response, sorted, for set comparison. */
export const uuidsOf = (body: any): string[] =>
  (body.results[0].people as { uuid: string }[]).map((p) => p.uuid).sort();
export const expected = (...persons: SeededPerson[]) => persons.map((p) => p.uuid).sort();

/** A seeded pseudo-random generator (a linear congruential one), so a randomized test replays the same data. */
export function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

/** Local calendar days in `zone` (YYYY-MM-DD, from Intl's en-CA format): an instant's day, and a day shifted by n days. */
export function localDays(zone: string) {
  const format = new Intl.DateTimeFormat("en-CA", {
    timeZone: zone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  });
  return {
    dayOf: (ms: number) => format.format(new Date(ms)),
    shift: (day: string, n: number) => {
      const [y, m, d] = day.split("-").map(Number);
      return new Date(Date.UTC(y, m - 1, d + n)).toISOString().slice(0, 10);
    },
  };
}
