import { and, count, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { groups } from "../db/schema";
import { validationError } from "../lib/errors";
import { countPersonsMatching } from "../persons/matching";
import { compileFilterGroup, parseFilterGroup } from "../shared/filters";

export interface BlastRadius {
  users_affected: number;
  total_users: number;
}

const noCohorts = () => {
  throw validationError("Cohort filters cannot target groups.", "condition");
};

/**
 * How many persons (or groups of one type) a release condition's properties match, and how many
 * there are (PostHog V-B `user_blast_radius`), counted in SQL by the persons area's matcher.
 * The condition's rollout percentage is not applied, as in PostHog.
 */
export async function userBlastRadius(
  db: Db,
  projectId: number,
  condition: Record<string, unknown>,
  groupTypeIndex: number | null,
): Promise<BlastRadius> {
  const properties = condition.properties ?? [];
  if (groupTypeIndex === null) {
    const { matching, total } = await countPersonsMatching(db, projectId, parseFilterGroup(properties, "condition"));
    return { users_affected: matching, total_users: total };
  }
  // Group filters read the group's own properties: match them as properties of the `groups` row.
  const asPerson = Array.isArray(properties)
    ? properties.map((p) =>
        p && typeof p === "object" && (p as { type?: unknown }).type === "group" ? { ...p, type: "person" } : p,
      )
    : properties;
  const where = compileFilterGroup(
    parseFilterGroup(asPerson, "condition"),
    { personProperties: sql`${groups.properties}` },
    noCohorts,
  );
  const ofType = and(eq(groups.projectId, projectId), eq(groups.groupTypeIndex, groupTypeIndex));
  const [matching, total] = await Promise.all([
    db.select({ n: count() }).from(groups).where(and(ofType, where)).get(),
    db.select({ n: count() }).from(groups).where(ofType).get(),
  ]);
  return { users_affected: matching?.n ?? 0, total_users: total?.n ?? 0 };
}
