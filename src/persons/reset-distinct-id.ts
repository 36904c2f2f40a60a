import { sql } from "drizzle-orm";
import type { AnalyticsStore } from "../analytics";
import type { PersonKey } from "../analytics/person-events";
import type { Db } from "../db/client";

/**
 * reset_person_distinct_id: frees a distinct id for reuse after its person was deleted. Deleting a
 * person already removes its ids here, so what remains is to detach the id's past events from the
 * deleted person: they follow the id's current person (or none).
 */
export async function resetDistinctId(db: Db, store: AnalyticsStore, projectId: number, distinctId: string) {
  const current = await db.get<PersonKey | undefined>(sql`SELECT p.id AS id, p.uuid AS uuid FROM person_distinct_ids d
    CROSS JOIN persons p ON p.id = d.person_id WHERE d.project_id = ${projectId} AND d.distinct_id = ${distinctId}`);
  await store.distinctIdReset(projectId, distinctId, current ?? null);
}
