import type { DefinitionsPayload } from "./definitions";
import type { FlagDefinition } from "./evaluation/types";

/**
 * What /flags needs to know about a payload before evaluating it, worked out once per parsed
 * payload (that is, once per ETag and isolate: a new ETag parses a new payload) instead of
 * walking every flag's filters on every request.
 */
export interface CompiledDefinitions {
  payload: DefinitionsPayload;
  byKey: ReadonlyMap<string, FlagDefinition>;
  /** An active flag needs the stored person whatever the request sends (cohort, enrollment, continuity). */
  alwaysNeedsPerson: boolean;
  /** Person property keys active flags filter on: a request that sends them all skips the person read. */
  personKeys: string[];
  /** Keys of active experience-continuity flags. */
  continuity: string[];
  groupIndexByName: ReadonlyMap<string, number>;
  /** Group property keys active flags filter on, by group type index. */
  groupKeys: ReadonlyMap<number, string[]>;
  /** Some flag is restricted to a runtime or to evaluation contexts, so callers see different flag sets. */
  restrictsCallers: boolean;
}

/** The runtime a flag is restricted to; any other value (`all`, none, unknown) means every runtime, as PostHog reads it. */
export function runtimeRestrictionOf(flag: FlagDefinition): "client" | "server" | undefined {
  const runtime = flag.evaluation_runtime?.toLowerCase();
  return runtime === "client" || runtime === "server" ? runtime : undefined;
}

const compiled = new WeakMap<DefinitionsPayload, CompiledDefinitions>();

function compile(payload: DefinitionsPayload): CompiledDefinitions {
  let alwaysNeedsPerson = false;
  const personKeys = new Set<string>();
  const groupKeys = new Map<number, Set<string>>();
  const continuity: string[] = [];
  for (const flag of payload.flags) {
    if (!flag.active) continue;
    if (flag.ensure_experience_continuity) continuity.push(flag.key);
    if (flag.ensure_experience_continuity || flag.filters.feature_enrollment || flag.filters.super_groups?.length)
      alwaysNeedsPerson = true;
    // Stored filters are validated on write; a malformed row still must not fail every flag here
    // (its own evaluation fails it alone).
    for (const group of Array.isArray(flag.filters.groups) ? flag.filters.groups : []) {
      for (const p of Array.isArray(group?.properties) ? group.properties : []) {
        if (!p) continue;
        if (p.type === "cohort") alwaysNeedsPerson = true;
        else if ((p.type === "person" || p.type === undefined) && p.key !== "distinct_id") personKeys.add(p.key);
        else if (p.type === "group") {
          const index = p.group_type_index ?? flag.filters.aggregation_group_type_index;
          if (typeof index !== "number") continue;
          if (!groupKeys.has(index)) groupKeys.set(index, new Set());
          groupKeys.get(index)!.add(p.key);
        }
      }
    }
  }
  return {
    payload,
    byKey: new Map(payload.flags.map((f) => [f.key, f])),
    alwaysNeedsPerson,
    personKeys: [...personKeys],
    continuity,
    groupIndexByName: new Map(Object.entries(payload.group_type_mapping).map(([i, name]) => [name, Number(i)])),
    groupKeys: new Map([...groupKeys].map(([index, keys]) => [index, [...keys]])),
    restrictsCallers: payload.flags.some(
      (f) =>
        runtimeRestrictionOf(f) !== undefined || (Array.isArray(f.evaluation_tags) && f.evaluation_tags.length > 0),
    ),
  };
}

/** The compiled form of a payload (made on first use, kept as long as the payload object lives). */
export function compiledOf(payload: DefinitionsPayload): CompiledDefinitions {
  let c = compiled.get(payload);
  if (!c) compiled.set(payload, (c = compile(payload)));
  return c;
}

/**
 * Whether any active flag needs stored person data: a person property the request did not send,
 * a cohort, enrollment, or experience continuity. Pure rollouts (and requests that send every
 * property used) skip the D1 person read entirely, as PostHog's server does.
 */
export function needsStoredPerson(c: CompiledDefinitions, sent: Record<string, unknown>): boolean {
  return c.alwaysNeedsPerson || c.personKeys.some((key) => !(key in sent));
}

/** Whether an active flag filters on a property of group type `index` that the request did not send. */
export function needsStoredGroup(c: CompiledDefinitions, index: number, sent: Record<string, unknown>): boolean {
  return (c.groupKeys.get(index) ?? []).some((key) => !(key in sent));
}
