import { sql } from "drizzle-orm";
import type { CapturedEvent } from "./event";
import type { IngestPlan } from "./process";
import type { EventSink, SinkAttempt } from "./sink";
import type { PersonDraft } from "./state";
import type { Db } from "../../db/client";
import type { Env } from "../../env";
import { enqueueRows, fitsInMessage, MAX_QUEUED_PROPERTIES_BYTES } from "../../analytics/clickhouse/queue";
import {
  type ClickHouseRows,
  distinctIdRow,
  microsIso,
  mirrorVersion,
  personRow,
} from "../../analytics/clickhouse/rows";
import { chunkJson } from "../../lib/d1";
import { ApiError } from "../../lib/errors";
import { finalPerson, writtenVersion } from "./write";

/**
 * Events in ClickHouse: nothing of them is written to D1. Once the ingest's batch committed, the
 * events (each with the person its distinct id maps to after the plan) and the mirror of what the
 * batch changed among persons go to the events queue, which the consumer inserts into ClickHouse.
 * A merge is mirrored as the merged-away person's deletion, its distinct ids moving to the target,
 * and overrides that make its past events read as the target: stored events are never rewritten.
 */
export const clickhouseEventSink = (env: Env): EventSink => ({
  prepare: (_db: Db, projectId: number, plan: IngestPlan, events: CapturedEvent[]) => {
    // Serialized once: checked here, then queued as they are.
    const eventProperties = events.map((e) => JSON.stringify(e.properties));
    refuseUnqueueable(plan, eventProperties);
    return prepared(env, projectId, plan, events, eventProperties);
  },
});

/**
 * Every row travels to ClickHouse in one queue message: a request with an event, or a person it
 * updates, whose properties exceed a message is refused before anything is written (413), instead
 * of committing to D1 and then failing to queue on every retry.
 */
function refuseUnqueueable(plan: IngestPlan, eventProperties: string[]) {
  const persons = [...plan.created, ...plan.updated].map((p) => JSON.stringify(p.properties));
  if ([...eventProperties, ...persons].every(fitsInMessage)) return;
  throw new ApiError(
    413,
    "invalid_request",
    "payload_too_large",
    `An event, or the person it updates, has more than ${MAX_QUEUED_PROPERTIES_BYTES} bytes of properties: the events queue to ClickHouse cannot carry it.`,
  );
}

/** The attempt: the reads its mirror needs, then the rows queued once the batch committed. */
const prepared = (
  env: Env,
  projectId: number,
  plan: IngestPlan,
  events: CapturedEvent[],
  eventProperties: string[],
): SinkAttempt => ({
  // The merged-away persons' distinct ids, read in the batch before the merge moves them: every id
  // (not only those the events mention) needs an override, and only the batch sees them race-free.
  first: chunkJson(plan.merges.map((m) => m.source.uuid)).map(
    (chunk) => sql`SELECT d.distinct_id, p.uuid FROM json_each(${chunk}) j
        CROSS JOIN persons p ON p.project_id = ${projectId} AND p.uuid = j.value
        CROSS JOIN person_distinct_ids d ON d.project_id = ${projectId} AND d.person_id = p.id`,
  ),
  // The ids D1 gave the persons this batch created (the mirror carries each person's D1 id).
  last: chunkJson(plan.created.map((p) => p.uuid)).map(
    (chunk) => sql`SELECT p.id, p.uuid FROM json_each(${chunk}) j
        CROSS JOIN persons p ON p.project_id = ${projectId} AND p.uuid = j.value`,
  ),
  async committed(firstResults, lastResults) {
    const merged = firstResults.flatMap((r) => r.results as { distinct_id: string; uuid: string }[]);
    const createdIds = new Map(
      lastResults.flatMap((r) => r.results as { id: number; uuid: string }[]).map((r) => [r.uuid, r.id]),
    );
    const rows = mirrorRows(projectId, plan, events, eventProperties, merged, createdIds);
    try {
      await enqueueRows(env, rows);
    } catch (err) {
      if (err instanceof ApiError) throw err;
      console.error(`project ${projectId}: queueing ${events.length} event(s) for ClickHouse failed`, err);
      // The persons are committed; the SDK's retry re-plans them to the same state and queues the
      // events again (ClickHouse keeps one row per uuid), so nothing is lost (docs/compatibility.md).
      throw new ApiError(
        503,
        "server_error",
        "queue_unavailable",
        "The events could not be queued; retry the request.",
      );
    }
  },
});

/** The rows for ClickHouse of one committed ingest: its events and the persons mirror of its writes. */
function mirrorRows(
  projectId: number,
  plan: IngestPlan,
  events: CapturedEvent[],
  eventProperties: string[],
  merged: { distinct_id: string; uuid: string }[],
  createdIds: Map<string, number>,
): ClickHouseRows {
  // One microsecond apart in the request's order: ClickHouse orders simultaneous events by
  // created_at, as D1 orders them by insertion (the persons analysis relies on it).
  const committedAt = Date.now() * 1000;
  const createdAt = (index: number) => microsIso(committedAt + index);
  // A person created and merged away within this request was never stored: 0, as the mirror defaults.
  const mirrored = (p: PersonDraft) => ({ ...p, id: p.id ?? createdIds.get(p.uuid) ?? 0 });
  const distinctId = (id: string, target: PersonDraft) => distinctIdRow(projectId, id, target.uuid, mirrorVersion());
  const targetOf = new Map(plan.merges.map((m) => [m.source.uuid, finalPerson(m.target)]));
  const moved = merged.map((row) => distinctId(row.distinct_id, targetOf.get(row.uuid)!));
  return {
    events: events.map((e, index) => {
      const owner = plan.persons.get(e.distinctId);
      return {
        uuid: e.uuid,
        team_id: projectId,
        event: e.event,
        distinct_id: e.distinctId,
        properties: eventProperties[index],
        timestamp: e.timestamp,
        created_at: createdAt(index),
        person_id: owner ? finalPerson(owner).uuid : null,
      };
    }),
    // The versions D1 gave the rows (created persons start at 0), so the mirror's latest is D1's. A
    // merged-away person's deletion takes the version its row would have had next, above every
    // version mirrored for it before (those were at most the one this ingest read).
    person: [
      ...plan.created.map((p) => personRow(projectId, mirrored(p), 0)),
      ...plan.updated.map((p) => personRow(projectId, mirrored(p), writtenVersion(p))),
      ...plan.merges.map((m) => personRow(projectId, mirrored(m.source), writtenVersion(m.source), true)),
    ],
    person_distinct_id2: [...plan.links.map((l) => distinctId(l.distinctId, l.person)), ...moved],
    person_distinct_id_overrides: moved,
  };
}
