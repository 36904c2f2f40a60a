import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { chunkJson } from "../lib/d1";

/**
 * Rewrites and deletes of a person's events, in bounded chunks. A person may own millions of
 * events, and one D1 statement may run for at most 30 s, so these never join a person batch:
 * each statement touches at most CHUNK rows (picked by rowid through an index) and is repeated
 * until a run touches fewer. Events follow distinct ids, so `events.person_id` lagging behind a
 * merge or split for the length of the loop is acceptable (docs/compatibility.md).
 */
export const EVENT_CHUNK = 5000;
/** Ends the loop even if rows kept matching (they cannot, as each run moves its rows out of the match). */
const MAX_RUNS = 20_000;

async function untilDone(db: Db, statement: SQL): Promise<number> {
  let total = 0;
  for (let run = 0; run < MAX_RUNS; run++) {
    const { meta } = await db.run(statement);
    total += meta.changes;
    if (meta.changes < EVENT_CHUNK) break;
  }
  return total;
}

/** Events of merged-away persons move to the person each was finally merged into (`t`: its uuid). */
export async function moveMergedEvents(db: Db, projectId: number, pairs: { sourceId: number; targetUuid: string }[]) {
  for (const chunk of chunkJson(pairs.map((p) => ({ s: p.sourceId, t: p.targetUuid })))) {
    await untilDone(
      db,
      sql`WITH m AS MATERIALIZED (SELECT j.value ->> '$.s' AS sid, t.id AS tid FROM json_each(${chunk}) j
         CROSS JOIN persons t ON t.project_id = ${projectId} AND t.uuid = j.value ->> '$.t')
       UPDATE events SET person_id = (SELECT tid FROM m WHERE m.sid = events.person_id)
       WHERE id IN (SELECT e.id FROM m CROSS JOIN events e ON e.project_id = ${projectId} AND e.person_id = m.sid LIMIT ${EVENT_CHUNK})`,
    );
  }
}

/** Events of a person whose distinct ids moved to other persons (split) follow their distinct id. */
export async function followDistinctIds(db: Db, projectId: number, personId: number) {
  await untilDone(
    db,
    sql`UPDATE events SET person_id = (SELECT d.person_id FROM person_distinct_ids d WHERE d.project_id = ${projectId} AND d.distinct_id = events.distinct_id)
     WHERE id IN (SELECT e.id FROM events e CROSS JOIN person_distinct_ids d ON d.project_id = ${projectId} AND d.distinct_id = e.distinct_id
       WHERE e.project_id = ${projectId} AND e.person_id = ${personId} AND d.person_id <> ${personId} LIMIT ${EVENT_CHUNK})`,
  );
}

/** Events of these persons stored before `before` (ISO) are deleted. */
export async function deleteEventsOf(db: Db, projectId: number, personIds: number[], before: string) {
  for (const chunk of chunkJson(personIds)) {
    await untilDone(
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
  await untilDone(
    db,
    sql`UPDATE events SET person_id = (SELECT d.person_id FROM person_distinct_ids d CROSS JOIN persons p ON p.id = d.person_id
       WHERE d.project_id = ${projectId} AND d.distinct_id = ${distinctId})
     WHERE id IN (SELECT e.id FROM events e WHERE e.project_id = ${projectId} AND e.distinct_id = ${distinctId} AND e.person_id IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM persons p WHERE p.id = e.person_id) LIMIT ${EVENT_CHUNK})`,
  );
}
