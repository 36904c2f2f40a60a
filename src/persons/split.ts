import { sql } from "drizzle-orm";
import type { AnalyticsStore } from "../analytics";
import type { PersonSplit } from "../analytics/person-events";
import type { Db } from "../db/client";
import { activityEntry } from "../lib/activity-log";
import type { Principal } from "../lib/auth/principal";
import { validationError } from "../lib/errors";
import { runBatch } from "../lib/d1";
import type { PersonWithIds } from "./serialize";

export interface SplitInput {
  main_distinct_id?: string | null;
  distinct_ids_to_split?: string[];
}

/**
 * Undoes merges: the chosen distinct ids each move to a new person of their own (empty properties),
 * with their events; the original person keeps its properties (PostHog's current behaviour).
 * Without arguments every id but the oldest moves off; with `main_distinct_id` every other id does.
 */
export async function splitPerson(
  db: Db,
  store: AnalyticsStore,
  projectId: number,
  person: PersonWithIds,
  input: SplitInput,
  principal: Principal,
) {
  if (input.main_distinct_id != null && input.distinct_ids_to_split) {
    throw validationError("main_distinct_id cannot be combined with distinct_ids_to_split");
  }
  let moving: string[];
  if (input.distinct_ids_to_split) {
    if (!input.distinct_ids_to_split.length) throw validationError("must not be empty", "distinct_ids_to_split");
    const foreign = input.distinct_ids_to_split.filter((d) => !person.distinctIds.includes(d));
    if (foreign.length)
      throw validationError(`not on this person: ${JSON.stringify(foreign)}`, "distinct_ids_to_split");
    moving = [...new Set(input.distinct_ids_to_split)];
  } else if (input.main_distinct_id != null) {
    moving = person.distinctIds.filter((d) => d !== input.main_distinct_id);
  } else {
    moving = person.distinctIds.slice(1);
  }
  // A person never loses its last distinct id.
  if (moving.length >= person.distinctIds.length) moving = moving.slice(0, person.distinctIds.length - 1);
  if (!moving.length) return;

  const now = new Date().toISOString();
  const version = person.version + 1;
  const created = moving.map((distinctId) => ({ distinctId, uuid: crypto.randomUUID() }));
  const rows = JSON.stringify(created.map((m) => ({ d: m.distinctId, u: m.uuid })));
  const [inserted] = await runBatch(db, [
    sql`INSERT INTO persons (project_id, uuid, properties, is_identified, created_at, version)
      SELECT ${projectId}, j.value ->> '$.u', '{}', 0, ${now}, ${version} FROM json_each(${rows}) j RETURNING id, uuid`,
    sql`WITH j AS MATERIALIZED (SELECT value ->> '$.d' AS d, value ->> '$.u' AS u FROM json_each(${rows}))
      UPDATE person_distinct_ids SET version = version + 1,
        person_id = (SELECT p.id FROM j CROSS JOIN persons p ON p.project_id = ${projectId} AND p.uuid = j.u WHERE j.d = person_distinct_ids.distinct_id)
      WHERE project_id = ${projectId} AND distinct_id IN (SELECT d FROM j)`,
    sql`UPDATE persons SET version = version + 1 WHERE id = ${person.id}`,
    activityEntry(db, {
      projectId,
      scope: "Person",
      itemId: person.id,
      activity: "split_person",
      principal,
      name: person.uuid,
      changes: [
        {
          type: "Person",
          action: "split",
          field: null,
          before: null,
          after: {
            distinct_ids: person.distinctIds,
            ...(input.distinct_ids_to_split ? { distinct_ids_to_split: moving } : {}),
          },
        },
      ],
    }),
  ]);
  const idOf = new Map((inserted.results as { id: number; uuid: string }[]).map((r) => [r.uuid, r.id]));
  const moved: PersonSplit["moved"] = created.map(({ distinctId, uuid }) => ({
    distinctId,
    person: { id: idOf.get(uuid)!, uuid, createdAt: now, properties: {}, isIdentified: false, version },
  }));
  // Then each past event follows its distinct id to the person that id now belongs to, outside the
  // batch (a person may own more events than one statement can rewrite in time).
  await store.personSplit(projectId, { person: { ...person, version }, moved });
}
