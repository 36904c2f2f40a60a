import type { CapturedEvent } from "./event";
import type { Db } from "../../db/client";
import { type BatchItem, runBatch } from "../../lib/d1";
import { ApiError } from "../../lib/errors";
import { planIngest, processesPerson } from "./process";
import type { EventSink } from "./sink";
import type { Env } from "../../env";
import { analyticsEngine } from "../../analytics";
import { clickhouseEventSink } from "./clickhouse-sink";
import { d1EventSink } from "./d1-sink";
import { loadIngestState, personUuidFor, type PersonDraft } from "./state";
import { ingestStatements } from "./write";

export type { EventSink } from "./sink";

/** The event sink of this deployment's analytics engine. */
export function eventSink(env: Env): EventSink {
  return analyticsEngine(env) === "clickhouse" ? clickhouseEventSink(env) : d1EventSink;
}

/** Attempts before giving up on a batch that keeps racing with concurrent writers of the same persons. */
const MAX_ATTEMPTS = 40;

/** A loaded person as one ingest attempt saw it. */
export interface PersonSnapshot {
  id: number;
  uuid: string;
  properties: Record<string, unknown>;
}

export interface IngestOptions {
  /**
   * Statements to commit in the same batch as the events (e.g. an activity entry), built from the
   * attempt that is written: `before(distinctId)` is the person the plan started from, `after` the
   * person as the plan leaves it (both only for persons that existed). Called again on each retry;
   * throwing aborts the ingest with nothing written.
   */
  alongside?: (view: {
    before(distinctId: string): PersonSnapshot | undefined;
    after(distinctId: string): PersonSnapshot | undefined;
  }) => BatchItem[];
}

export interface IngestOutcome {
  /** Group types seen for the first time (the flags' cached definitions carry the type mapping). */
  groupTypesAdded: number;
}

/**
 * Stores events and applies their person processing: one read round trip, then one `db.batch`
 * (a single D1 transaction) with every person write and the sink's statements. When a concurrent
 * request changed one of the same persons or distinct ids in between, the batch fails as a whole
 * and is redone from a fresh read. The sink finishes after the commit (moving past events of merged
 * persons on D1, queueing events and the persons mirror for ClickHouse).
 */
export async function ingestEvents(
  db: Db,
  sink: EventSink,
  projectId: number,
  events: CapturedEvent[],
  options: IngestOptions = {},
): Promise<IngestOutcome> {
  if (!events.length) return { groupTypesAdded: 0 };
  const ids = mentionedDistinctIds(events);
  const needGroups = events.some((e) => e.event === "$groupidentify");
  for (let attempt = 1; ; attempt++) {
    const state = await loadIngestState(db, projectId, ids, needGroups);
    // Derived uuids make two requests creating the same person collide (and retry, then find it).
    // Retries past the second fall back to random uuids, in case a derived uuid is held by another
    // person (one that kept it after a split).
    const missing = attempt <= 2 ? ids.filter((id) => !state.loaded.has(id)) : [];
    const uuids = new Map(
      await Promise.all(missing.map(async (id) => [id, await personUuidFor(projectId, id)] as const)),
    );
    // The plan updates the loaded drafts in place: snapshot them first.
    const before = new Map([...state.loaded].map(([d, p]) => [d, snapshot(p)]));
    const plan = planIngest(state, events, uuids);
    const extra =
      options.alongside?.({
        before: (d) => before.get(d),
        after: (d) => {
          let p = state.loaded.get(d);
          while (p?.mergedInto) p = p.mergedInto;
          return p && snapshot(p);
        },
      }) ?? [];
    const stored = sink.prepare(db, projectId, plan, events);
    const writes = ingestStatements(projectId, plan);
    let results: D1Result[];
    try {
      results = await runBatch(db, [...stored.first, ...writes, ...stored.last, ...extra]);
    } catch (err) {
      if (!isConflict(err) || attempt >= MAX_ATTEMPTS) {
        if (isConflict(err))
          throw new ApiError(
            503,
            "server_error",
            "conflict",
            "Too many concurrent updates of the same persons; retry the request.",
          );
        throw err;
      }
      await new Promise((r) => setTimeout(r, Math.random() * 10 * Math.min(attempt, 10)));
      continue;
    }
    const lastAt = stored.first.length + writes.length;
    await stored.committed(results.slice(0, stored.first.length), results.slice(lastAt, lastAt + stored.last.length));
    return { groupTypesAdded: plan.newGroupTypes.length };
  }
}

const snapshot = (p: PersonDraft): PersonSnapshot => ({
  id: p.id!,
  uuid: p.uuid,
  properties: structuredClone(p.properties),
});

/** Every distinct id whose person the events may read or change. */
function mentionedDistinctIds(events: CapturedEvent[]): string[] {
  const ids = new Set<string>();
  for (const e of events) {
    ids.add(e.distinctId);
    if (!processesPerson(e)) continue;
    const { alias, $anon_distinct_id: anon } = e.properties;
    if ((e.event === "$create_alias" || e.event === "$merge_dangerously") && alias != null) ids.add(String(alias));
    if (e.event === "$identify" && anon != null) ids.add(String(anon));
  }
  return [...ids];
}

const isConflict = (err: unknown) => /constraint failed/i.test(String((err as Error)?.message ?? err));
