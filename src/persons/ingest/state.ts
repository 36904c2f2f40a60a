import { sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { nameUuid } from "../../lib/crypto";
import { runBatch } from "../../lib/d1";

/** A person as the ingestion pass sees it: loaded from D1 or created by an event of this request. */
export interface PersonDraft {
  uuid: string;
  /** Null while the person exists only in this request. */
  id: number | null;
  properties: Record<string, unknown>;
  isIdentified: boolean;
  createdAt: string;
  version: number;
  /** The version read from D1; the write refuses to apply if the row moved on meanwhile. */
  loadedVersion: number | null;
  changed: boolean;
  /** Set when this person was merged into another during the pass. */
  mergedInto: PersonDraft | null;
}

/** What the pass starts from: the persons of every distinct id the events mention, and group types. */
export interface IngestState {
  projectId: number;
  /** distinct id → person, for ids that had a person when loaded. */
  loaded: Map<string, PersonDraft>;
  groupTypes: Map<string, number>;
}

interface LoadedRow {
  distinct_id: string;
  id: number;
  uuid: string;
  properties: string;
  is_identified: number;
  created_at: string;
  version: number;
}

/** One round trip: every mentioned distinct id's person, plus the group type mapping when needed. */
export async function loadIngestState(
  db: Db,
  projectId: number,
  distinctIds: string[],
  needGroups: boolean,
): Promise<IngestState> {
  const statements = [
    sql`SELECT d.distinct_id, p.id, p.uuid, p.properties, p.is_identified, p.created_at, p.version
         FROM json_each(${JSON.stringify(distinctIds)}) j
         CROSS JOIN person_distinct_ids d ON d.project_id = ${projectId} AND d.distinct_id = j.value
         CROSS JOIN persons p ON p.id = d.person_id`,
  ];
  if (needGroups) {
    statements.push(sql`SELECT group_type, group_type_index FROM group_type_mappings WHERE project_id = ${projectId}`);
  }
  // One round trip for both reads.
  const [people, groupRows] = await runBatch(db, statements);
  const byId = new Map<number, PersonDraft>();
  const loaded = new Map<string, PersonDraft>();
  for (const row of people.results as unknown as LoadedRow[]) {
    let person = byId.get(row.id);
    if (!person) {
      person = {
        uuid: row.uuid,
        id: row.id,
        properties: JSON.parse(row.properties),
        isIdentified: !!row.is_identified,
        createdAt: row.created_at,
        version: row.version,
        loadedVersion: row.version,
        changed: false,
        mergedInto: null,
      };
      byId.set(row.id, person);
    }
    loaded.set(row.distinct_id, person);
  }
  const groupTypes = new Map<string, number>();
  for (const row of (groupRows?.results ?? []) as { group_type: string; group_type_index: number }[]) {
    groupTypes.set(row.group_type, row.group_type_index);
  }
  return { projectId, loaded, groupTypes };
}

/** The person UUID PostHog derives from a distinct id, so concurrent creators of one id collide. */
export const personUuidFor = (projectId: number, distinctId: string): Promise<string> =>
  nameUuid(`edgehog:person:${projectId}:${distinctId}`);
