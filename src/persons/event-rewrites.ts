import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { EVENT_CHUNK, inChunks } from "../analytics/d1/person-events";
import { chunkJson } from "../lib/d1";

/**
 * Events of merged-away persons move to the person each was finally merged into (`t`: its uuid), in
 * bounded chunks outside the merge's batch (src/analytics/d1/person-events.ts says why). Ingestion's
 * own rewrite on D1; the other persons operations reach events through the analytics store.
 */
export async function moveMergedEvents(db: Db, projectId: number, pairs: { sourceId: number; targetUuid: string }[]) {
  for (const chunk of chunkJson(pairs.map((p) => ({ s: p.sourceId, t: p.targetUuid })))) {
    await inChunks(
      db,
      sql`WITH m AS MATERIALIZED (SELECT j.value ->> '$.s' AS sid, t.id AS tid FROM json_each(${chunk}) j
         CROSS JOIN persons t ON t.project_id = ${projectId} AND t.uuid = j.value ->> '$.t')
       UPDATE events SET person_id = (SELECT tid FROM m WHERE m.sid = events.person_id)
       WHERE id IN (SELECT e.id FROM m CROSS JOIN events e ON e.project_id = ${projectId} AND e.person_id = m.sid LIMIT ${EVENT_CHUNK})`,
    );
  }
}
