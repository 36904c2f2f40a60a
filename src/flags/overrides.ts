import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { flagHashKeyOverrides } from "../db/schema";
import { chunked } from "../lib/d1";

/**
 * Experience continuity (flag-eval.md §1.3): the first time a person with an anonymous id is
 * evaluated for a continuity flag, that anonymous id is stored as the flag's hash key, so the
 * person keeps the bucket they had before identifying. Existing overrides are never replaced.
 */
export async function hashKeyOverrides(
  db: Db,
  projectId: number,
  personId: number,
  flagKeys: string[],
  anonDistinctId: string | undefined,
): Promise<Record<string, string>> {
  if (!flagKeys.length) return {};
  if (anonDistinctId) {
    // The keys travel as one JSON value: a multi-row VALUES would bind four values per flag, and D1
    // allows 100 per statement.
    await db.run(
      sql`INSERT INTO flag_hash_key_overrides (project_id, person_id, feature_flag_key, hash_key)
        SELECT ${projectId}, ${personId}, value, ${anonDistinctId} FROM json_each(${JSON.stringify(flagKeys)}) WHERE true
        ON CONFLICT DO NOTHING`,
    );
  }
  const out: Record<string, string> = {};
  for (const chunk of chunked(flagKeys)) {
    const rows = await db
      .select({ key: flagHashKeyOverrides.featureFlagKey, hashKey: flagHashKeyOverrides.hashKey })
      .from(flagHashKeyOverrides)
      .where(
        and(
          eq(flagHashKeyOverrides.projectId, projectId),
          eq(flagHashKeyOverrides.personId, personId),
          inArray(flagHashKeyOverrides.featureFlagKey, chunk),
        ),
      );
    for (const r of rows) out[r.key] = r.hashKey;
  }
  return out;
}
