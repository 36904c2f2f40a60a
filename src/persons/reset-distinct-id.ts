import { sql } from "drizzle-orm";
import type { Db } from "../db/client";

/**
 * reset_person_distinct_id: frees a distinct id for reuse after its person was deleted. Deleting a
 * person already removes its ids here, so what remains is to detach the id's past events from the
 * deleted person: they follow the id's current person (or none).
 */
export async function resetDistinctId(db: Db, projectId: number, distinctId: string) {
  await db.run(sql`UPDATE events SET person_id =
      (SELECT d.person_id FROM person_distinct_ids d WHERE d.project_id = events.project_id AND d.distinct_id = events.distinct_id)
    WHERE project_id = ${projectId} AND distinct_id = ${distinctId} AND person_id IS NOT NULL
      AND person_id NOT IN (SELECT id FROM persons WHERE project_id = ${projectId})`);
}
