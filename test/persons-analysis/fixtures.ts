import { env } from "cloudflare:workers";

/**
 * Seeds persons, distinct ids and events straight into D1 (matching src/db/schema.ts), so the
 * analysis tests do not depend on the capture API. Timestamps are ISO 8601 UTC with ms and `Z`.
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
  return { id: row!.id, uuid, distinctId };
}

/** `[event, timestamp, properties?]`, stored in the given order (ties on timestamp keep that order). */
export type EventSpec = [string, string, Record<string, unknown>?];

export async function seedEvents(projectId: number, person: SeededPerson, list: EventSpec[]) {
  if (!list.length) return;
  await env.DB.batch(
    list.map(([event, timestamp, properties]) =>
      env.DB.prepare(
        `INSERT INTO events (project_id, uuid, event, distinct_id, person_id, properties, timestamp) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)`,
      ).bind(
        projectId,
        crypto.randomUUID(),
        event,
        person.distinctId,
        person.id,
        JSON.stringify(properties ?? {}),
        new Date(timestamp).toISOString(),
      ),
    ),
  );
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
