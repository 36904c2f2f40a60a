import { and, eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { groups, groupTypeMappings } from "../db/schema";

/** `{ "0": "company", ... }`: the shape SDKs receive as `group_type_mapping`. */
export async function groupTypeMapping(db: Db, projectId: number): Promise<Record<string, string>> {
  const rows = await db
    .select()
    .from(groupTypeMappings)
    .where(eq(groupTypeMappings.projectId, projectId))
    .orderBy(groupTypeMappings.groupTypeIndex);
  return Object.fromEntries(rows.map((r) => [String(r.groupTypeIndex), r.groupType]));
}

export async function getGroupProperties(
  db: Db,
  projectId: number,
  groupTypeIndex: number,
  groupKey: string,
): Promise<Record<string, unknown> | undefined> {
  const row = await db
    .select({ properties: groups.properties })
    .from(groups)
    .where(
      and(eq(groups.projectId, projectId), eq(groups.groupTypeIndex, groupTypeIndex), eq(groups.groupKey, groupKey)),
    )
    .get();
  return row?.properties;
}
