import { and, eq, sql } from "drizzle-orm";
import { getCohort } from "../shared/cohorts/reads";
import type { Db } from "../db/client";
import { featureFlags } from "../db/schema";
import { cohortTree } from "./cohort-tree";
import type { FilterReferences } from "./validate-property";

/** Edges `flag id → ids it depends on`, for the project's live flags. */
export async function dependencyGraph(db: Db, projectId: number): Promise<Map<number, number[]>> {
  const edges = await db.all<{ id: number; dep: string }>(sql`
    SELECT f.id AS id, json_extract(p.value, '$.key') AS dep
    FROM feature_flags f, json_each(f.filters, '$.groups') g, json_each(g.value, '$.properties') p
    WHERE f.project_id = ${projectId} AND f.deleted = 0 AND json_extract(p.value, '$.type') = 'flag'`);
  const graph = new Map<number, number[]>();
  for (const e of edges) graph.set(e.id, [...(graph.get(e.id) ?? []), Number(e.dep)]);
  return graph;
}

/** Active, live flags that depend on `flagId` (a reference may be written `"5"`, `"05"` or `5`: compared as numbers). */
export async function dependentFlags(db: Db, projectId: number, flagId: number) {
  return db.all<{ id: number; key: string }>(sql`
    SELECT DISTINCT f.id AS id, f.key AS key
    FROM feature_flags f, json_each(f.filters, '$.groups') g, json_each(g.value, '$.properties') p
    WHERE f.project_id = ${projectId} AND f.deleted = 0 AND f.active = 1
      AND json_extract(p.value, '$.type') = 'flag' AND CAST(json_extract(p.value, '$.key') AS INTEGER) = ${flagId}
    ORDER BY f.id`);
}

const BEHAVIORAL = new Set(["behavioral", "event", "events"]);

/** Whether a cohort filters on events, directly or through a cohort it references. */
async function cohortIsBehavioral(db: Db, projectId: number, filters: unknown, seen: Set<number>): Promise<boolean> {
  const walk = async (node: unknown): Promise<boolean> => {
    if (!node || typeof node !== "object") return false;
    const n = node as Record<string, unknown>;
    if (Array.isArray(n.values)) {
      for (const child of n.values) if (await walk(child)) return true;
      return false;
    }
    if (typeof n.type === "string" && BEHAVIORAL.has(n.type)) return true;
    if (n.type === "cohort") {
      const id = Number(n.value);
      if (seen.has(id)) return false;
      seen.add(id);
      const nested = await getCohort(db, projectId, id);
      return !!nested && (await cohortIsBehavioral(db, projectId, cohortTree(nested.filters), seen));
    }
    return false;
  };
  return walk(filters);
}

export function filterReferences(db: Db, projectId: number): FilterReferences {
  return {
    async cohort(id) {
      const cohort = await getCohort(db, projectId, id);
      if (!cohort || cohort.deleted) return undefined;
      return {
        name: cohort.name,
        behavioral: await cohortIsBehavioral(db, projectId, cohortTree(cohort.filters), new Set([id])),
      };
    },
    async flag(id) {
      return db
        .select({ id: featureFlags.id, key: featureFlags.key, active: featureFlags.active })
        .from(featureFlags)
        .where(and(eq(featureFlags.projectId, projectId), eq(featureFlags.id, id), eq(featureFlags.deleted, false)))
        .get();
    },
    dependencyGraph: () => dependencyGraph(db, projectId),
  };
}
