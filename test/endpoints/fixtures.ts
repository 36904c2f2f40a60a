import { env } from "cloudflare:workers";
import { seedClickHouse } from "../clickhouse/seed";
import { clickhouse } from "../clickhouse/worker/client";
import { onClickHouse } from "../helpers";
import type { SeedData } from "../seed-data";

/**
 * Writes persons and events straight into D1 (rows shaped as src/db/schema.ts), so endpoint tests
 * do not depend on the capture pipeline; when the test deployment stores events in ClickHouse (the
 * ClickHouse suite's worker project runs some of these tests), into ClickHouse as well, with the
 * same persons (`clickhouse: false`: D1 only, for a test that gives ClickHouse a history of its own, e.g.
 * events stored before a merge that D1 has rewritten). Returns the persons' uuids in order.
 */
export async function seed(projectId: number, data: SeedData, options: { clickhouse?: boolean } = {}) {
  const persons = (data.persons ?? []).map((p) => ({ ...p, uuid: p.uuid ?? crypto.randomUUID() }));
  if (onClickHouse && options.clickhouse !== false) await seedClickHouse(clickhouse(), projectId, { ...data, persons });
  const uuids: string[] = [];
  for (const person of persons) {
    const uuid = person.uuid;
    uuids.push(uuid);
    const row = await env.DB.prepare(
      "INSERT INTO persons (project_id, uuid, properties, is_identified, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id",
    )
      .bind(
        projectId,
        uuid,
        JSON.stringify(person.properties ?? {}),
        person.isIdentified ? 1 : 0,
        person.createdAt ?? new Date().toISOString(),
      )
      .first<{ id: number }>();
    await env.DB.batch(
      person.distinctIds.map((d) =>
        env.DB.prepare("INSERT INTO person_distinct_ids (project_id, distinct_id, person_id) VALUES (?, ?, ?)").bind(
          projectId,
          d,
          row!.id,
        ),
      ),
    );
  }
  const events = data.events ?? [];
  for (let i = 0; i < events.length; i += 50) {
    await env.DB.batch(
      events
        .slice(i, i + 50)
        .map((e) =>
          env.DB.prepare(
            "INSERT INTO events (project_id, uuid, event, distinct_id, person_id, properties, timestamp) VALUES (?, ?, ?, ?, (SELECT person_id FROM person_distinct_ids WHERE project_id = ? AND distinct_id = ?), ?, ?)",
          ).bind(
            projectId,
            e.uuid ?? crypto.randomUUID(),
            e.event,
            e.distinctId,
            projectId,
            e.distinctId,
            JSON.stringify(e.properties ?? {}),
            e.timestamp,
          ),
        ),
    );
  }
  return uuids;
}

/** An ISO timestamp `days` days (and `hours` hours) before now. */
export const ago = (days: number, hours = 0) => new Date(Date.now() - (days * 24 + hours) * 3600_000).toISOString();
