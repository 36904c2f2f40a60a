import type { CapturedEvent } from "./event";
import type { IngestPlan } from "./process";
import type { PersonDraft } from "./state";

/**
 * Rows travel to D1 as one JSON array per statement (read back with `json_each`), so a statement
 * binds two or three parameters whatever the row count; arrays are cut at this many bytes to stay
 * well under D1's 2 MB limit for one value.
 */
const MAX_CHUNK_BYTES = 900_000;

export function chunkJson(rows: unknown[]): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  let size = 2;
  for (const row of rows) {
    const text = JSON.stringify(row);
    if (current.length && size + text.length + 1 > MAX_CHUNK_BYTES) {
      chunks.push(`[${current.join(",")}]`);
      current = [];
      size = 2;
    }
    current.push(text);
    size += text.length + 1;
  }
  if (current.length) chunks.push(`[${current.join(",")}]`);
  return chunks;
}

export const finalPerson = (p: PersonDraft) => {
  while (p.mergedInto) p = p.mergedInto;
  return p;
};

const PERSON_ID = (ref: string) => `(SELECT id FROM persons WHERE project_id = ?1 AND uuid = ${ref})`;

/**
 * The statements that apply a plan and store the events, in one `db.batch` (one transaction).
 * A person row that changed since it was read makes the version check set NULL into a NOT NULL
 * column, which aborts the whole batch; the caller then reloads and retries.
 */
export function ingestStatements(
  d1: D1Database,
  projectId: number,
  plan: IngestPlan,
  events: CapturedEvent[],
  /** Statements that must commit with the ingest (or not at all), appended to the batch. */
  extra: D1PreparedStatement[] = [],
): D1PreparedStatement[] {
  const out: D1PreparedStatement[] = [];
  const each = (sql: string, rows: unknown[]) => {
    for (const chunk of chunkJson(rows)) out.push(d1.prepare(sql).bind(projectId, chunk));
  };

  if (plan.touched.length) {
    each(
      `WITH j AS MATERIALIZED (SELECT value ->> '$.id' AS id, value ->> '$.v' AS v FROM json_each(?2))
       UPDATE persons SET version = CASE WHEN version = (SELECT v FROM j WHERE j.id = persons.id) THEN version ELSE NULL END
       WHERE project_id = ?1 AND id IN (SELECT id FROM j)`,
      plan.touched.map((p) => ({ id: p.id, v: p.loadedVersion })),
    );
  }
  if (plan.created.length) {
    each(
      `INSERT INTO persons (project_id, uuid, properties, is_identified, created_at, version)
       SELECT ?1, j.value ->> '$.u', j.value -> '$.p', j.value ->> '$.i', j.value ->> '$.c', 0 FROM json_each(?2) j`,
      plan.created.map((p) => ({ u: p.uuid, p: p.properties, i: p.isIdentified ? 1 : 0, c: p.createdAt })),
    );
  }
  out.push(
    ...mergeStatements(
      d1,
      projectId,
      plan.merges.map((m) => ({ source: m.source.uuid, target: finalPerson(m.target).uuid })),
    ),
  );
  if (plan.links.length) {
    each(
      `INSERT INTO person_distinct_ids (project_id, distinct_id, person_id)
       SELECT ?1, j.value ->> '$.d', ${PERSON_ID("j.value ->> '$.u'")} FROM json_each(?2) j`,
      plan.links.map((l) => ({ d: l.distinctId, u: l.person.uuid })),
    );
  }
  if (plan.updated.length) {
    const col = (name: string) => `(SELECT ${name} FROM j WHERE j.u = persons.uuid)`;
    each(
      `WITH j AS MATERIALIZED (SELECT value ->> '$.u' AS u, value -> '$.p' AS p, value ->> '$.i' AS i, value ->> '$.c' AS c,
         value ->> '$.v' AS v FROM json_each(?2))
       UPDATE persons SET properties = ${col("p")}, is_identified = ${col("i")}, created_at = ${col("c")}, version = ${col("v")}
       WHERE project_id = ?1 AND uuid IN (SELECT u FROM j)`,
      plan.updated.map((p) => ({
        u: p.uuid,
        p: p.properties,
        i: p.isIdentified ? 1 : 0,
        c: p.createdAt,
        v: Math.max(p.version, (p.loadedVersion ?? 0) + 1),
      })),
    );
  }
  if (plan.newGroupTypes.length) {
    each(
      `INSERT INTO group_type_mappings (project_id, group_type, group_type_index)
       SELECT ?1, j.value ->> '$.t', j.value ->> '$.i' FROM json_each(?2) j`,
      plan.newGroupTypes.map((g) => ({ t: g.groupType, i: g.index })),
    );
  }
  if (plan.groups.length) {
    each(
      `INSERT INTO groups (project_id, group_type_index, group_key, properties, created_at)
       SELECT ?1, j.value ->> '$.i', j.value ->> '$.k', j.value -> '$.p', j.value ->> '$.c' FROM json_each(?2) j WHERE true
       ON CONFLICT (project_id, group_type_index, group_key)
       DO UPDATE SET properties = json_patch(groups.properties, excluded.properties), version = groups.version + 1`,
      plan.groups.map((g) => ({ i: g.groupTypeIndex, k: g.groupKey, p: g.properties, c: g.createdAt })),
    );
  }
  out.push(...eventStatements(d1, projectId, events), ...extra);
  return out;
}

/** Stores events; each takes the person its distinct id maps to once the batch's links are written. */
export function eventStatements(d1: D1Database, projectId: number, events: CapturedEvent[]): D1PreparedStatement[] {
  const rows = events.map((e) => ({ u: e.uuid, e: e.event, d: e.distinctId, p: e.properties, t: e.timestamp }));
  return chunkJson(rows).map((chunk) =>
    d1
      .prepare(
        // Events whose uuid is already stored (an SDK retry, a concurrent copy of the same batch, a
        // repeat within the batch) are skipped by the unique (project_id, uuid) index.
        // `WHERE true` lets SQLite parse ON CONFLICT after a join's ON clause.
        `INSERT INTO events (project_id, uuid, event, distinct_id, person_id, properties, timestamp)
         SELECT ?1, j.value ->> '$.u', j.value ->> '$.e', j.value ->> '$.d', d.person_id, j.value -> '$.p', j.value ->> '$.t'
         FROM json_each(?2) j
         LEFT JOIN person_distinct_ids d ON d.project_id = ?1 AND d.distinct_id = j.value ->> '$.d'
         WHERE true
         ON CONFLICT (project_id, uuid) DO NOTHING`,
      )
      .bind(projectId, chunk),
  );
}

/**
 * Moves everything of each merged-away person onto the person it finally merged into, set-wise (a
 * fixed number of statements however many merges): distinct ids, static cohort memberships and flag
 * hash-key overrides (the target's own win); then deletes the sources. Past events are moved after
 * the batch commits, in bounded chunks (`moveMergedEvents`), as a person's events are unbounded.
 */
export function mergeStatements(
  d1: D1Database,
  projectId: number,
  pairs: { source: string; target: string }[],
): D1PreparedStatement[] {
  if (!pairs.length) return [];
  // The pairs are materialized once as (sid, tid); every statement then walks indexes from them.
  // (UPDATE ... FROM json_each lets SQLite scan the whole target table per pair.)
  // CROSS JOIN pins json_each as the outer loop: otherwise SQLite may scan persons and re-read the JSON per row.
  const m = `WITH m AS MATERIALIZED (SELECT s.id AS sid, t.id AS tid FROM json_each(?2) j
    CROSS JOIN persons s ON s.project_id = ?1 AND s.uuid = j.value ->> '$.s'
    CROSS JOIN persons t ON t.project_id = ?1 AND t.uuid = j.value ->> '$.t')`;
  const sqls = [
    `${m} UPDATE person_distinct_ids SET person_id = (SELECT tid FROM m WHERE m.sid = person_distinct_ids.person_id)
     WHERE project_id = ?1 AND person_id IN (SELECT sid FROM m)`,
    `${m} INSERT OR IGNORE INTO cohort_people (cohort_id, person_id) SELECT cp.cohort_id, m.tid FROM m CROSS JOIN cohort_people cp ON cp.person_id = m.sid`,
    `${m} INSERT OR IGNORE INTO flag_hash_key_overrides (project_id, person_id, feature_flag_key, hash_key)
     SELECT o.project_id, m.tid, o.feature_flag_key, o.hash_key FROM m CROSS JOIN flag_hash_key_overrides o ON o.project_id = ?1 AND o.person_id = m.sid`,
    // Explicit rather than ON DELETE CASCADE, which depends on foreign keys being enforced.
    `${m} DELETE FROM cohort_people WHERE person_id IN (SELECT sid FROM m)`,
    `${m} DELETE FROM flag_hash_key_overrides WHERE project_id = ?1 AND person_id IN (SELECT sid FROM m)`,
    `${m} DELETE FROM persons WHERE project_id = ?1 AND id IN (SELECT sid FROM m)`,
  ];
  const out: D1PreparedStatement[] = [];
  for (const chunk of chunkJson(pairs.map((p) => ({ s: p.source, t: p.target })))) {
    for (const sql of sqls) out.push(d1.prepare(sql).bind(projectId, chunk));
  }
  return out;
}
