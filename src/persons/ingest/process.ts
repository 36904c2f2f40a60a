import type { CapturedEvent } from "./event";
import { applyPropertyUpdates } from "./properties";
import type { IngestState, PersonDraft } from "./state";

/** An existing person merged into another (both already in D1): moved by SQL at write time. */
export interface MergeOp {
  source: PersonDraft;
  target: PersonDraft;
}

export interface GroupUpsert {
  groupTypeIndex: number;
  groupKey: string;
  properties: Record<string, unknown>;
  createdAt: string;
}

/** Everything the pass decided, for the writer. */
export interface IngestPlan {
  /** Persons created by this request that survive it (final state). */
  created: PersonDraft[];
  /** Loaded persons whose row changes (final state). */
  updated: PersonDraft[];
  /** Loaded persons touched in any way: their version is checked before writing. */
  touched: PersonDraft[];
  merges: MergeOp[];
  /** New distinct id → person links. */
  links: { distinctId: string; person: PersonDraft }[];
  newGroupTypes: { groupType: string; index: number }[];
  groups: GroupUpsert[];
}

const MAX_GROUP_TYPES = 5;
const NO_PROPERTY_UPDATE_EVENTS = new Set(["$exception", "$$heatmap"]);

// PostHog refuses to merge through ids that are obviously placeholders (person-merge-service.ts).
const ILLEGAL_ANY_CASE = new Set(
  [
    "anonymous",
    "guest",
    "distinctid",
    "distinct_id",
    "id",
    "not_authenticated",
    "email",
    "undefined",
    "true",
    "false",
  ].flatMap((id) => [id, `'${id}'`, `"${id}"`]),
);
const ILLEGAL_EXACT = new Set(
  ["[object Object]", "NaN", "None", "none", "null", "0", "undefined"].flatMap((id) => [id, `'${id}'`, `"${id}"`]),
);
export const isIllegalDistinctId = (id: string) =>
  id.trim() === "" || ILLEGAL_ANY_CASE.has(id.toLowerCase()) || ILLEGAL_EXACT.has(id);

/** True when an event asks for person processing (PostHog's `$process_person_profile`). */
export const processesPerson = (event: CapturedEvent) => event.properties.$process_person_profile !== false;

/**
 * Applies the events, in order, to the persons in memory, following PostHog's person-state rules:
 * unknown distinct ids create persons; `$identify` / `$create_alias` / `$merge_dangerously` link or
 * merge (never merging an identified person away, except `$merge_dangerously`); `$set`, `$set_once`
 * and `$unset` then update the event's person; `$groupidentify` upserts the group.
 */
export function planIngest(state: IngestState, events: CapturedEvent[], uuids: Map<string, string>): IngestPlan {
  const current = new Map(state.loaded);
  const created = new Set<PersonDraft>();
  const merges: MergeOp[] = [];
  const groups: GroupUpsert[] = [];
  const newGroupTypes: { groupType: string; index: number }[] = [];

  const resolve = (person: PersonDraft) => {
    while (person.mergedInto) person = person.mergedInto;
    return person;
  };
  const lookup = (distinctId: string) => {
    const person = current.get(distinctId);
    return person ? resolve(person) : undefined;
  };
  const create = (distinctIds: string[], at: string, identified: boolean): PersonDraft => {
    const person: PersonDraft = {
      uuid: uuids.get(distinctIds[0]) ?? crypto.randomUUID(),
      id: null,
      properties: {},
      isIdentified: identified,
      createdAt: at,
      version: 0,
      loadedVersion: null,
      changed: true,
      mergedInto: null,
    };
    created.add(person);
    for (const id of distinctIds) current.set(id, person);
    return person;
  };

  const merge = (otherId: string, intoId: string, event: CapturedEvent): PersonDraft | undefined => {
    if (otherId === intoId || isIllegalDistinctId(otherId) || isIllegalDistinctId(intoId)) return undefined;
    const other = lookup(otherId);
    const into = lookup(intoId);
    if (other && !into) {
      current.set(intoId, other);
      return other;
    }
    if (into && !other) {
      current.set(otherId, into);
      return into;
    }
    if (!other || !into) return create([intoId, otherId], event.timestamp, true);
    if (other === into) return into;
    if (other.isIdentified && event.event !== "$merge_dangerously") return into;
    // On a conflicting key the person of `distinct_id` (the merge target) wins.
    into.properties = { ...other.properties, ...into.properties };
    // biome-ignore lint/complexity/useMathMinMax: ISO timestamp strings, where the smaller string is the earlier time.
    into.createdAt = other.createdAt < into.createdAt ? other.createdAt : into.createdAt;
    into.version = Math.max(into.version, other.version) + 1;
    into.changed = true;
    other.mergedInto = into;
    if (other.id !== null) merges.push({ source: other, target: into });
    else created.delete(other);
    return into;
  };

  for (const event of events) {
    if (event.event === "$groupidentify") collectGroup(event, state.groupTypes, newGroupTypes, groups);
    if (!processesPerson(event)) continue;
    const props = event.properties;
    let identified = false;
    if (
      (event.event === "$create_alias" || event.event === "$merge_dangerously") &&
      props.alias != null &&
      props.alias !== ""
    ) {
      identified = merge(String(props.alias), event.distinctId, event) !== undefined;
    } else if (event.event === "$identify" && "$anon_distinct_id" in props && props.$anon_distinct_id != null) {
      identified = merge(String(props.$anon_distinct_id), event.distinctId, event) !== undefined;
    }
    const person = lookup(event.distinctId) ?? create([event.distinctId], event.timestamp, false);
    if (identified && !person.isIdentified) {
      person.isIdentified = true;
      person.changed = true;
    }
    if (!NO_PROPERTY_UPDATE_EVENTS.has(event.event) && applyPropertyUpdates(person.properties, props)) {
      person.changed = true;
      if (person.id !== null) person.version += 1;
    }
  }

  const loadedPersons = new Set(state.loaded.values());
  const links: IngestPlan["links"] = [];
  for (const [distinctId, person] of current) {
    if (!state.loaded.has(distinctId)) links.push({ distinctId, person: resolve(person) });
  }
  const touched = [...loadedPersons].filter((p) => p.changed || p.mergedInto);
  return {
    created: [...created],
    updated: touched.filter((p) => !p.mergedInto),
    touched,
    merges,
    links,
    newGroupTypes,
    groups,
  };
}

function collectGroup(
  event: CapturedEvent,
  types: Map<string, number>,
  newTypes: { groupType: string; index: number }[],
  groups: GroupUpsert[],
) {
  const { $group_type: type, $group_key: key, $group_set: set } = event.properties;
  if (typeof type !== "string" || !type || (typeof key !== "string" && typeof key !== "number")) return;
  let index = types.get(type);
  if (index === undefined) {
    if (types.size >= MAX_GROUP_TYPES) return;
    const used = new Set(types.values());
    index = [0, 1, 2, 3, 4].find((i) => !used.has(i))!;
    types.set(type, index);
    newTypes.push({ groupType: type, index });
  }
  const properties = set && typeof set === "object" && !Array.isArray(set) ? (set as Record<string, unknown>) : {};
  groups.push({ groupTypeIndex: index, groupKey: String(key), properties, createdAt: event.timestamp });
}
