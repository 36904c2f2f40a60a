import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import type { persons } from "../db/schema";

export type PersonRow = typeof persons.$inferSelect;

/** What flag evaluation needs of a stored person. */
export interface StoredPerson {
  id: number;
  properties: Record<string, unknown>;
}

/**
 * The person a distinct id currently resolves to, if any. This is on the /flags hot path, so it is
 * one statement reading only the two columns evaluation uses (no query builder, no row mapping).
 */
export async function findPersonByDistinctId(
  db: Db,
  projectId: number,
  distinctId: string,
): Promise<StoredPerson | undefined> {
  const row = await db.get<{ id: number; properties: string } | undefined>(
    sql`SELECT p.id AS id, p.properties AS properties FROM person_distinct_ids d
       JOIN persons p ON p.id = d.person_id WHERE d.project_id = ${projectId} AND d.distinct_id = ${distinctId}`,
  );
  return row ? { id: row.id, properties: JSON.parse(row.properties) as Record<string, unknown> } : undefined;
}
