import type { D1Client } from "../../db/client";

/**
 * One bounded chunk of retention: the oldest `limit` events of a project before the cutoff, found
 * through the (project_id, timestamp) index, deleted by rowid in the same statement.
 */
export async function deleteEventsBefore(d1: D1Client, projectId: number, before: string, limit: number) {
  const result = await d1
    .prepare(
      `DELETE FROM events WHERE id IN (
         SELECT id FROM events WHERE project_id = ?1 AND timestamp < ?2 ORDER BY timestamp LIMIT ?3
       )`,
    )
    .bind(projectId, before, limit)
    .run();
  return result.meta.changes;
}
