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
  /** Every mentioned distinct id that has a person once the plan applies (follow `mergedInto` to its survivor). */
  persons: ReadonlyMap<string, PersonDraft>;
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

/** The persons as the pass has them so far. */
interface PersonPass {
  /** distinct id → person; a person merged away since points on through `mergedInto`. */
  byDistinctId: Map<string, PersonDraft>;
  /** Persons this request creates and that are still live. */
  created: Set<PersonDraft>;
  merges: MergeOp[];
  /** The uuid to give the person created for a distinct id, where the caller chose one. */
  uuids: Map<string, string>;
}

/**
 * Applies the events, in order, to the persons in memory, following PostHog's person-state rules:
 * unknown distinct ids create persons; `$identify` / `$create_alias` / `$merge_dangerously` link or
 * merge (never merging an identified person away, except `$merge_dangerously`); `$set`, `$set_once`
 * and `$unset` then update the event's person; `$groupidentify` upserts the group.
 */
export function planIngest(state: IngestState, events: CapturedEvent[], uuids: Map<string, string>): IngestPlan {
  const pass: PersonPass = { byDistinctId: new Map(state.loaded), created: new Set(), merges: [], uuids };
  const groups: GroupUpsert[] = [];
  const newGroupTypes: IngestPlan["newGroupTypes"] = [];
  for (const event of events) {
    if (event.event === "$groupidentify") collectGroup(event, state.groupTypes, newGroupTypes, groups);
    if (processesPerson(event)) applyToPerson(pass, event);
  }
  return { ...personChanges(state, pass), newGroupTypes, groups };
}

/** One event's effect on persons: its identity link, then its person (created if new) and property updates. */
function applyToPerson(pass: PersonPass, event: CapturedEvent) {
  const linked = linkedDistinctId(event);
  const identified = linked !== undefined && link(pass, linked, event.distinctId, event) !== undefined;
  const person = personOf(pass, event.distinctId) ?? createPerson(pass, [event.distinctId], event.timestamp, false);
  if (identified && !person.isIdentified) {
    person.isIdentified = true;
    person.changed = true;
  }
  if (!NO_PROPERTY_UPDATE_EVENTS.has(event.event) && applyPropertyUpdates(person.properties, event.properties)) {
    person.changed = true;
    if (person.id !== null) person.version += 1;
  }
}

/**
 * The id an identity event links to its own distinct id: the `alias` of `$create_alias` and
 * `$merge_dangerously`, the `$anon_distinct_id` of `$identify`.
 */
function linkedDistinctId({ event, properties }: CapturedEvent): string | undefined {
  if (event === "$create_alias" || event === "$merge_dangerously") {
    return properties.alias != null && properties.alias !== "" ? String(properties.alias) : undefined;
  }
  if (event === "$identify" && properties.$anon_distinct_id != null) return String(properties.$anon_distinct_id);
  return undefined;
}

/** The person a draft ended up in, following merges. */
function survivor(person: PersonDraft): PersonDraft {
  while (person.mergedInto) person = person.mergedInto;
  return person;
}

/** The person of a distinct id so far, if it has one. */
function personOf(pass: PersonPass, distinctId: string): PersonDraft | undefined {
  const person = pass.byDistinctId.get(distinctId);
  return person ? survivor(person) : undefined;
}

/** A new person holding `distinctIds`. */
function createPerson(pass: PersonPass, distinctIds: string[], at: string, identified: boolean): PersonDraft {
  const person: PersonDraft = {
    uuid: pass.uuids.get(distinctIds[0]) ?? crypto.randomUUID(),
    id: null,
    properties: {},
    isIdentified: identified,
    createdAt: at,
    version: 0,
    loadedVersion: null,
    changed: true,
    mergedInto: null,
  };
  pass.created.add(person);
  for (const id of distinctIds) pass.byDistinctId.set(id, person);
  return person;
}

/**
 * Puts `otherId` and `intoId` on one person: the one either already has, a new one when neither
 * has, or `intoId`'s after merging `otherId`'s into it. Returns that person, or undefined when the
 * ids are the same or a placeholder (PostHog refuses those).
 */
function link(pass: PersonPass, otherId: string, intoId: string, event: CapturedEvent): PersonDraft | undefined {
  if (otherId === intoId || isIllegalDistinctId(otherId) || isIllegalDistinctId(intoId)) return undefined;
  const other = personOf(pass, otherId);
  const into = personOf(pass, intoId);
  if (other && !into) {
    pass.byDistinctId.set(intoId, other);
    return other;
  }
  if (into && !other) {
    pass.byDistinctId.set(otherId, into);
    return into;
  }
  if (!other || !into) return createPerson(pass, [intoId, otherId], event.timestamp, true);
  if (other === into) return into;
  if (other.isIdentified && event.event !== "$merge_dangerously") return into;
  mergePerson(pass, other, into);
  return into;
}

/** Merges `other` into `into`; on a conflicting key the person of `distinct_id` (the merge target) wins. */
function mergePerson(pass: PersonPass, other: PersonDraft, into: PersonDraft) {
  into.properties = { ...other.properties, ...into.properties };
  // ISO timestamp strings: the smaller string is the earlier time.
  into.createdAt = other.createdAt < into.createdAt ? other.createdAt : into.createdAt;
  into.version = Math.max(into.version, other.version) + 1;
  into.changed = true;
  other.mergedInto = into;
  if (other.id !== null) pass.merges.push({ source: other, target: into });
  else pass.created.delete(other);
}

/** What the pass changed among persons: the writer's part of the plan besides groups. */
function personChanges(state: IngestState, pass: PersonPass): Omit<IngestPlan, "newGroupTypes" | "groups"> {
  const links: IngestPlan["links"] = [];
  for (const [distinctId, person] of pass.byDistinctId) {
    if (!state.loaded.has(distinctId)) links.push({ distinctId, person: survivor(person) });
  }
  const touched = [...new Set(state.loaded.values())].filter((p) => p.changed || p.mergedInto);
  return {
    created: [...pass.created],
    updated: touched.filter((p) => !p.mergedInto),
    touched,
    merges: pass.merges,
    links,
    persons: pass.byDistinctId,
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
