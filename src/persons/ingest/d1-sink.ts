import type { CapturedEvent } from "./event";
import type { IngestPlan } from "./process";
import type { EventSink } from "./sink";
import type { Db } from "../../db/client";
import { moveMergedEvents } from "../event-rewrites";
import { eventStatements, finalPerson } from "./write";

/**
 * Events in D1, the embedded default: inserted in the ingest's batch (each takes the person its
 * distinct id maps to once the batch's links are written); past events of merged-away persons are
 * moved to their target after the commit.
 */
export const d1EventSink: EventSink = {
  prepare: (db: Db, projectId: number, plan: IngestPlan, events: CapturedEvent[]) => ({
    first: [],
    last: eventStatements(projectId, events),
    committed: () => moveEventsOfMerged(db, projectId, plan),
  }),
};

/**
 * Past events of merged-away persons move to their target, in bounded chunks. After the commit on
 * purpose: a slow or failing rewrite must not redo the ingest. The merge and the events stand
 * either way, so a failure is logged, not returned to the SDK (the events keep the merged-away
 * person id; see docs/compatibility.md).
 */
async function moveEventsOfMerged(db: Db, projectId: number, plan: IngestPlan) {
  const pairs = plan.merges.flatMap((m) =>
    m.source.id === null ? [] : [{ sourceId: m.source.id, targetUuid: finalPerson(m.target).uuid }],
  );
  if (!pairs.length) return;
  try {
    await moveMergedEvents(db, projectId, pairs);
  } catch (err) {
    console.error(`project ${projectId}: moving events of ${pairs.length} merged person(s) failed`, err);
  }
}
