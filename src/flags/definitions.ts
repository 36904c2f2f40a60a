import { and, eq } from "drizzle-orm";
import { liveCohorts } from "../shared/cohorts/reads";
import type { Db } from "../db/client";
import { featureFlags } from "../db/schema";
import { groupTypeMapping } from "../groups/service";
import { referencedCohorts, type PropertyGroup } from "./evaluation/cohorts";
import type { Condition, FlagDefinition } from "./evaluation/types";
import type { FlagRow } from "./row";
import { expandCohorts } from "./cohort-expansion";
import { cohortTree } from "./cohort-tree";
import { effectiveFilters } from "./status";

/** The local-evaluation payload (flags-api.md §5.7), the same on all three definition routes. */
export interface DefinitionsPayload {
  flags: Array<FlagDefinition & Record<string, unknown>>;
  group_type_mapping: Record<string, string>;
  cohorts: Record<string, PropertyGroup>;
}

/** `dependency_chain` of flag `id`: its dependencies in evaluation order, itself last; [] on a cycle or a missing flag. */
function chainOf(id: number, byId: Map<number, FlagRow>): string[] {
  const order: string[] = [];
  const done = new Set<number>();
  const visiting = new Set<number>();
  const visit = (current: number): boolean => {
    if (done.has(current)) return true;
    const flag = byId.get(current);
    if (!flag || visiting.has(current)) return false;
    visiting.add(current);
    for (const dep of dependencyIds(flag)) if (!visit(dep)) return false;
    visiting.delete(current);
    done.add(current);
    order.push(flag.key);
    return true;
  };
  return visit(id) ? order : [];
}

function dependencyIds(flag: FlagRow): number[] {
  const groups = (effectiveFilters(flag.filters).groups ?? []) as Condition[];
  return groups.flatMap((g) => (g.properties ?? []).filter((p) => p.type === "flag").map((p) => Number(p.key)));
}

/** Rewrites flag-dependency properties from flag ids to keys, adding `dependency_chain`. */
function rewriteDependencies(filters: Record<string, unknown>, byId: Map<number, FlagRow>) {
  const groups = (filters.groups as Condition[] | undefined)?.map((group) => {
    if (!group?.properties?.some((p) => p.type === "flag")) return group;
    const properties = group.properties.map((p) => {
      if (p.type !== "flag") return p;
      const dep = byId.get(Number(p.key));
      return { ...p, key: dep?.key ?? p.key, dependency_chain: dep ? chainOf(dep.id, byId) : [] };
    });
    return { ...group, properties };
  });
  return { ...filters, groups };
}

function minimalFlag(flag: FlagRow, byId: Map<number, FlagRow>) {
  return {
    id: flag.id,
    team_id: flag.projectId,
    name: flag.name,
    key: flag.key,
    filters: rewriteDependencies(effectiveFilters(flag.filters), byId),
    deleted: flag.deleted,
    active: flag.active,
    ensure_experience_continuity: flag.ensureExperienceContinuity ?? false,
    has_encrypted_payloads: flag.hasEncryptedPayloads ?? false,
    version: flag.version,
    evaluation_runtime: flag.evaluationRuntime ?? "all",
    bucketing_identifier: flag.bucketingIdentifier,
    evaluation_tags: flag.evaluationTags,
  } as FlagDefinition & Record<string, unknown>;
}

/**
 * Builds both variants of the payload from D1: every live flag (inactive ones included) except
 * remote-configuration flags, and, with cohorts, the definitions of the dynamic cohorts they use
 * (transitively). Static cohorts are left out: SDKs send such flags to /flags. Without cohorts,
 * simple person-property cohorts are expanded into conditions (cohort-expansion.ts).
 */
export async function buildDefinitions(
  db: Db,
  projectId: number,
): Promise<{ withCohorts: DefinitionsPayload; withoutCohorts: DefinitionsPayload; staticCohorts: number[] }> {
  const [rows, mapping, cohorts] = await Promise.all([
    db
      .select()
      .from(featureFlags)
      .where(and(eq(featureFlags.projectId, projectId), eq(featureFlags.deleted, false)))
      .orderBy(featureFlags.id),
    groupTypeMapping(db, projectId),
    liveCohorts(db, projectId),
  ]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const flags = rows.filter((r) => !r.isRemoteConfiguration).map((r) => minimalFlag(r, byId));

  const dynamic = new Map(cohorts.filter((c) => !c.isStatic).map((c) => [c.id, cohortTree(c.filters)]));
  const used = new Set<number>();
  const pendingRoots = [
    ...referencedCohorts({
      values: flags.flatMap((f) => (f.filters.groups ?? []).flatMap((g) => g?.properties ?? [])),
    }),
  ];
  const pending = [...pendingRoots];
  while (pending.length) {
    const id = pending.pop()!;
    if (used.has(id) || !dynamic.has(id)) continue;
    used.add(id);
    pending.push(...referencedCohorts(dynamic.get(id)));
  }
  // Static cohorts the flags use, directly or inside a dynamic cohort (their members are in D1).
  const referenced = new Set([...used, ...pendingRoots]);
  for (const id of used) for (const nested of referencedCohorts(dynamic.get(id))) referenced.add(nested);
  const statics = cohorts.filter((c) => c.isStatic && referenced.has(c.id)).map((c) => c.id);
  const cohortMap = Object.fromEntries([...used].sort((a, b) => a - b).map((id) => [String(id), dynamic.get(id)!]));
  return {
    withCohorts: { flags, group_type_mapping: mapping, cohorts: cohortMap },
    withoutCohorts: {
      flags: flags.map((f) => expandCohorts(f, dynamic) as typeof f),
      group_type_mapping: mapping,
      cohorts: {},
    },
    staticCohorts: statics,
  };
}
