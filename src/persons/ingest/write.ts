import { type SQL, sql } from "drizzle-orm";
import { type BatchItem, chunkJson } from "../../lib/d1";
import type { CapturedEvent } from "./event";
import type { IngestPlan } from "./process";
import type { PersonDraft } from "./state";

export const finalPerson = (p: PersonDraft) => {
  while (p.mergedInto) p = p.mergedInto;
  return p;
};

/** The version a changed person is written with: past the one read, and past every in-memory step of the plan. */
export const writtenVersion = (p: PersonDraft) => Math.max(p.version, (p.loadedVersion ?? 0) + 1);

const personId = (projectId: number, ref: SQL) =>
  sql`(SELECT id FROM persons WHERE project_id = ${projectId} AND uuid = ${ref})`;

/**
 * The statements that apply a plan's person and group writes, for one `db.batch` (one transaction)
 * with the event sink's statements. A person row that changed since it was read makes the version
 * check set NULL into a NOT NULL column, which aborts the whole batch; the caller then reloads and retries.
 */
export function ingestStatements(projectId: number, plan: IngestPlan): BatchItem[] {
  const out: BatchItem[] = [];
  /** One statement per JSON chunk of the rows (`rows` in the SQL: the chunk, read with json_each). */
  const each = (statement: (rows: string) => SQL, rows: unknown[]) => {
    for (const chunk of chunkJson(rows)) out.push(statement(chunk));
  };

  if (plan.touched.length) {
    each(
      (rows) => sql`WITH j AS MATERIALIZED (SELECT value ->> '$.id' AS id, value ->> '$.v' AS v FROM json_each(${rows}))
       UPDATE persons SET version = CASE WHEN version = (SELECT v FROM j WHERE j.id = persons.id) THEN version ELSE NULL END
       WHERE project_id = ${projectId} AND id IN (SELECT id FROM j)`,
      plan.touched.map((p) => ({ id: p.id, v: p.loadedVersion })),
    );
  }
  if (plan.created.length) {
    each(
      (rows) => sql`INSERT INTO persons (project_id, uuid, properties, is_identified, created_at, version)
       SELECT ${projectId}, j.value ->> '$.u', j.value -> '$.p', j.value ->> '$.i', j.value ->> '$.c', 0 FROM json_each(${rows}) j`,
      plan.created.map((p) => ({ u: p.uuid, p: p.properties, i: p.isIdentified ? 1 : 0, c: p.createdAt })),
    );
  }
  out.push(
    ...mergeStatements(
      projectId,
      plan.merges.map((m) => ({ source: m.source.uuid, target: finalPerson(m.target).uuid })),
    ),
  );
  if (plan.links.length) {
    each(
      (rows) => sql`INSERT INTO person_distinct_ids (project_id, distinct_id, person_id)
       SELECT ${projectId}, j.value ->> '$.d', ${personId(projectId, sql`j.value ->> '$.u'`)} FROM json_each(${rows}) j`,
      plan.links.map((l) => ({ d: l.distinctId, u: l.person.uuid })),
    );
  }
  if (plan.updated.length) {
    const col = (name: string) => sql.raw(`(SELECT ${name} FROM j WHERE j.u = persons.uuid)`);
    each(
      (
        rows,
      ) => sql`WITH j AS MATERIALIZED (SELECT value ->> '$.u' AS u, value -> '$.p' AS p, value ->> '$.i' AS i, value ->> '$.c' AS c,
         value ->> '$.v' AS v FROM json_each(${rows}))
       UPDATE persons SET properties = ${col("p")}, is_identified = ${col("i")}, created_at = ${col("c")}, version = ${col("v")}
       WHERE project_id = ${projectId} AND uuid IN (SELECT u FROM j)`,
      plan.updated.map((p) => ({
        u: p.uuid,
        p: p.properties,
        i: p.isIdentified ? 1 : 0,
        c: p.createdAt,
        v: writtenVersion(p),
      })),
    );
  }
  if (plan.newGroupTypes.length) {
    each(
      (rows) => sql`INSERT INTO group_type_mappings (project_id, group_type, group_type_index)
       SELECT ${projectId}, j.value ->> '$.t', j.value ->> '$.i' FROM json_each(${rows}) j`,
      plan.newGroupTypes.map((g) => ({ t: g.groupType, i: g.index })),
    );
  }
  if (plan.groups.length) {
    each(
      (rows) => sql`INSERT INTO groups (project_id, group_type_index, group_key, properties, created_at)
       SELECT ${projectId}, j.value ->> '$.i', j.value ->> '$.k', j.value -> '$.p', j.value ->> '$.c' FROM json_each(${rows}) j WHERE true
       ON CONFLICT (project_id, group_type_index, group_key)
       DO UPDATE SET properties = json_patch(groups.properties, excluded.properties), version = groups.version + 1`,
      plan.groups.map((g) => ({ i: g.groupTypeIndex, k: g.groupKey, p: g.properties, c: g.createdAt })),
    );
  }
  return out;
}

/** Stores events; each takes the person its distinct id maps to once the batch's links are written. */
export function eventStatements(projectId: number, events: CapturedEvent[]): BatchItem[] {
  const rows = events.map((e) => ({ u: e.uuid, e: e.event, d: e.distinctId, p: e.properties, t: e.timestamp }));
  return chunkJson(rows).map(
    (chunk) =>
      // Events whose uuid is already stored (an SDK retry, a concurrent copy of the same batch, a
      // repeat within the batch) are skipped by the unique (project_id, uuid) index.
      // `WHERE true` lets SQLite parse ON CONFLICT after a join's ON clause.
      sql`INSERT INTO events (project_id, uuid, event, distinct_id, person_id, properties, timestamp)
         SELECT ${projectId}, j.value ->> '$.u', j.value ->> '$.e', j.value ->> '$.d', d.person_id, j.value -> '$.p', j.value ->> '$.t'
         FROM json_each(${chunk}) j
         LEFT JOIN person_distinct_ids d ON d.project_id = ${projectId} AND d.distinct_id = j.value ->> '$.d'
         WHERE true
         ON CONFLICT (project_id, uuid) DO NOTHING`,
  );
}

/**
 * Moves everything of each merged-away person onto the person it finally merged into, set-wise (a
 * fixed number of statements however many merges): distinct ids, static cohort memberships and flag
 * hash-key overrides (the target's own win); then deletes the sources. Past events are moved after
 * the batch commits, in bounded chunks (`moveMergedEvents`), as a person's events are unbounded.
 */
export function mergeStatements(projectId: number, pairs: { source: string; target: string }[]): BatchItem[] {
  if (!pairs.length) return [];
  // The pairs are materialized once as (sid, tid); every statement then walks indexes from them.
  // (UPDATE ... FROM json_each lets SQLite scan the whole target table per pair.)
  // CROSS JOIN pins json_each as the outer loop: otherwise SQLite may scan persons and re-read the JSON per row.
  const statements = (chunk: string): SQL[] => {
    const m = sql`WITH m AS MATERIALIZED (SELECT s.id AS sid, t.id AS tid FROM json_each(${chunk}) j
    CROSS JOIN persons s ON s.project_id = ${projectId} AND s.uuid = j.value ->> '$.s'
    CROSS JOIN persons t ON t.project_id = ${projectId} AND t.uuid = j.value ->> '$.t')`;
    return [
      sql`${m} UPDATE person_distinct_ids SET person_id = (SELECT tid FROM m WHERE m.sid = person_distinct_ids.person_id)
     WHERE project_id = ${projectId} AND person_id IN (SELECT sid FROM m)`,
      sql`${m} INSERT OR IGNORE INTO cohort_people (cohort_id, person_id) SELECT cp.cohort_id, m.tid FROM m CROSS JOIN cohort_people cp ON cp.person_id = m.sid`,
      sql`${m} INSERT OR IGNORE INTO flag_hash_key_overrides (project_id, person_id, feature_flag_key, hash_key)
     SELECT o.project_id, m.tid, o.feature_flag_key, o.hash_key FROM m CROSS JOIN flag_hash_key_overrides o ON o.project_id = ${projectId} AND o.person_id = m.sid`,
      // Explicit rather than ON DELETE CASCADE, which depends on foreign keys being enforced.
      sql`${m} DELETE FROM cohort_people WHERE person_id IN (SELECT sid FROM m)`,
      sql`${m} DELETE FROM flag_hash_key_overrides WHERE project_id = ${projectId} AND person_id IN (SELECT sid FROM m)`,
      sql`${m} DELETE FROM persons WHERE project_id = ${projectId} AND id IN (SELECT sid FROM m)`,
    ];
  };
  const out: BatchItem[] = [];
  for (const chunk of chunkJson(pairs.map((p) => ({ s: p.source, t: p.target })))) {
    out.push(...statements(chunk));
  }
  return out;
}
