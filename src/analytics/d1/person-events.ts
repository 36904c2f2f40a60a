import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { chunkJson, untilDone } from "../../lib/d1";
import type { TimelineEvent, TimelineEventsQuery } from "../person-events";

/**
 * A person's events on D1, where each event row carries its person's row id (`events.person_id`):
 * persons operations rewrite or delete those rows in bounded chunks. A person may own millions of
 * events and one D1 statement may run for at most 30 s, so these never join a person batch: each
 * statement touches at most EVENT_CHUNK rows (picked by rowid through an index) and is repeated
 * until a run touches fewer. Events follow distinct ids, so `events.person_id` lagging behind a
 * split for the length of the loop is acceptable (docs/compatibility.md).
 */
export const EVENT_CHUNK = 5000;
/** Ends a loop even if rows kept matching (they cannot, as each run moves its rows out of the match). */
export const MAX_CHUNKS = 20_000;

/** Runs a statement that touches at most EVENT_CHUNK rows until nothing matches; says how many rows it touched. */
export async function inChunks(db: Db, statement: SQL): Promise<number> {
  const run = await untilDone(async () => (await db.run(statement)).meta.changes, EVENT_CHUNK, MAX_CHUNKS);
  return run.changes;
}

/** The events a properties timeline replays (src/persons/timeline.ts), in storage order within a timestamp. */
export async function timelineEvents(db: Db, q: TimelineEventsQuery): Promise<TimelineEvent[]> {
  const rows = await db.all<{ timestamp: string; properties: string; in_range: number }>(sql`
    SELECT timestamp, properties, timestamp >= ${q.from} AS in_range FROM events
    WHERE project_id = ${q.projectId} AND person_id = ${q.person.id} AND timestamp <= ${q.to}
      AND (timestamp >= ${q.from} OR json_type(properties, '$."$set"') IS NOT NULL
        OR json_type(properties, '$."$set_once"') IS NOT NULL OR json_type(properties, '$."$unset"') IS NOT NULL)
    ORDER BY timestamp, id LIMIT ${q.limit}`);
  return rows.map((r) => ({ timestamp: r.timestamp, properties: r.properties, inRange: Boolean(r.in_range) }));
}

/** Events of a person whose distinct ids moved to other persons (split) follow their distinct id. */
export async function followDistinctIds(db: Db, projectId: number, personId: number) {
  await inChunks(
    db,
    sql`UPDATE events SET person_id = (SELECT d.person_id FROM person_distinct_ids d WHERE d.project_id = ${projectId} AND d.distinct_id = events.distinct_id)
     WHERE id IN (SELECT e.id FROM events e CROSS JOIN person_distinct_ids d ON d.project_id = ${projectId} AND d.distinct_id = e.distinct_id
       WHERE e.project_id = ${projectId} AND e.person_id = ${personId} AND d.person_id <> ${personId} LIMIT ${EVENT_CHUNK})`,
  );
}

/** Events of these persons stored before `before` (ISO) are deleted. */
export async function deleteEventsOf(db: Db, projectId: number, personIds: number[], before: string) {
  for (const chunk of chunkJson(personIds)) {
    await inChunks(
      db,
      sql`DELETE FROM events WHERE id IN (SELECT e.id FROM json_each(${chunk}) j
         CROSS JOIN events e ON e.project_id = ${projectId} AND e.person_id = j.value
         WHERE e.created_at < ${before} LIMIT ${EVENT_CHUNK})`,
    );
  }
}

/**
 * Past events of a distinct id still pointing at a deleted person follow the id's current person,
 * or none (reset_person_distinct_id).
 */
export async function detachFromDeletedPerson(db: Db, projectId: number, distinctId: string) {
  await inChunks(
    db,
    sql`UPDATE events SET person_id = (SELECT d.person_id FROM person_distinct_ids d CROSS JOIN persons p ON p.id = d.person_id
       WHERE d.project_id = ${projectId} AND d.distinct_id = ${distinctId})
     WHERE id IN (SELECT e.id FROM events e WHERE e.project_id = ${projectId} AND e.distinct_id = ${distinctId} AND e.person_id IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM persons p WHERE p.id = e.person_id) LIMIT ${EVENT_CHUNK})`,
  );
}
