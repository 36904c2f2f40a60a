import { z } from "@hono/zod-openapi";

/**
 * THE ONE PLACE where the analysis views turn person ids into list-shaped persons (PostHog's
 * SerializedPerson). The persons area owns the list serializer; when it is on main this file
 * should delegate to it (a one-file change).
 */
export const SerializedPersonSchema = z
  .object({
    type: z.literal("person"),
    id: z.string().openapi({ description: "The person's UUID (not the integer id), as PostHog's list shape." }),
    uuid: z.string(),
    created_at: z.string().nullable(),
    properties: z.record(z.string(), z.unknown()),
    is_identified: z.boolean().nullable(),
    name: z.unknown(),
    distinct_ids: z.array(z.string()),
    matched_recordings: z.array(z.unknown()),
    value_at_data_point: z.number().nullable(),
  })
  .openapi("AnalysisPerson");

export type SerializedPerson = z.infer<typeof SerializedPersonSchema>;

const ANONYMOUS = /^([a-z0-9]+-){4}([a-z0-9]+)$/;
const NAME_PROPERTIES = ["email", "name", "username"];

interface PersonRow {
  id: number;
  uuid: string;
  properties: string;
  is_identified: number;
  created_at: string;
}

/** Hydrates persons in the given order; ids whose person no longer exists are skipped. */
export async function hydratePersons(d1: D1Database, projectId: number, ids: number[]): Promise<SerializedPerson[]> {
  if (!ids.length) return [];
  const list = JSON.stringify(ids);
  // One JSON parameter per list (json_each), so any page size stays within D1's bound-parameter limit.
  const [persons, distinct] = await d1.batch([
    d1
      .prepare(
        `SELECT id, uuid, properties, is_identified, created_at FROM persons
         WHERE project_id = ?1 AND id IN (SELECT value FROM json_each(?2))`,
      )
      .bind(projectId, list),
    d1
      .prepare(
        `SELECT person_id, distinct_id FROM person_distinct_ids
         WHERE project_id = ?1 AND person_id IN (SELECT value FROM json_each(?2)) ORDER BY rowid`,
      )
      .bind(projectId, list),
  ]);
  const byId = new Map((persons.results as unknown as PersonRow[]).map((p) => [p.id, p]));
  const idsOf = new Map<number, string[]>();
  for (const row of distinct.results as { person_id: number; distinct_id: string }[]) {
    const bucket = idsOf.get(row.person_id) ?? [];
    bucket.push(row.distinct_id);
    idsOf.set(row.person_id, bucket);
  }
  const out: SerializedPerson[] = [];
  for (const id of ids) {
    const row = byId.get(id);
    if (row) out.push(serialize(row, idsOf.get(id) ?? []));
  }
  return out;
}

function serialize(row: PersonRow, distinctIds: string[]): SerializedPerson {
  const properties = JSON.parse(row.properties) as Record<string, unknown>;
  // Stable sort: non-anonymous ids first, as PostHog's list shape.
  const sorted = [...distinctIds].sort((a, b) => Number(ANONYMOUS.test(a)) - Number(ANONYMOUS.test(b))).slice(0, 1000);
  const named = NAME_PROPERTIES.map((k) => properties[k]).find((v) => Boolean(v));
  return {
    type: "person",
    id: row.uuid,
    uuid: row.uuid,
    created_at: row.created_at,
    properties,
    is_identified: Boolean(row.is_identified),
    name: named ?? sorted[0] ?? row.uuid,
    distinct_ids: sorted,
    matched_recordings: [],
    value_at_data_point: null,
  };
}
