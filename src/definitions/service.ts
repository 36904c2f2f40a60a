import type { z } from "@hono/zod-openapi";
import type { AnalyticsStore } from "../analytics";
import type { PropertyKeySeen } from "../analytics/queries";
import type { Db } from "../db/client";
import { validationError } from "../lib/errors";
import { nameUuid } from "../lib/crypto";
import { type Page, paginated } from "../lib/pagination";
import { personPropertyKeys } from "../persons/property-keys";
import type { EventDefinition, EventDefinitionsQuery, PropertyDefinition, PropertyDefinitionsQuery } from "./schema";

/**
 * PostHog's event and property definitions, read from the data itself (edgehog keeps no definitions
 * table): event names from the events, property keys from the latest events and persons.
 */

/** How many event names a project lists at most. */
const MAX_EVENT_NAMES = 10_000;
/** Property keys come from this many of the latest events (of the asked names) or persons. */
export const PROPERTY_SAMPLE = 10_000;

/** Properties PostHog never lists: they are instructions or internals, not properties a filter reads. */
const NEVER_LISTED = new Set(["distinct_id", "$set", "$set_once", "$unset", "$groups", "$initial_referrer"]);

/** A definition's id: a UUID stable for the project, kind and name (edgehog has no definition rows). */
const definitionId = (projectId: number, kind: string, name: string): Promise<string> =>
  nameUuid(`edgehog:definition:${projectId}:${kind}:${JSON.stringify(name)}`);

const words = (search: string | undefined) => (search ?? "").toLowerCase().split(/\s+/).filter(Boolean);
const matchesAll = (name: string, terms: string[]) => terms.every((t) => name.toLowerCase().includes(t));

export async function eventDefinitions(
  store: AnalyticsStore,
  projectId: number,
  query: z.infer<typeof EventDefinitionsQuery>,
  page: Page,
  requestUrl: string,
) {
  const terms = words(query.search);
  const names = (await store.eventNames(projectId, MAX_EVENT_NAMES)).filter(
    (e) =>
      matchesAll(e.name, terms) &&
      (query.event_type === "event_custom"
        ? !e.name.startsWith("$")
        : query.event_type === "event_posthog"
          ? e.name.startsWith("$")
          : true),
  );
  // PostHog's order: a search puts shorter names first; then the day last seen, latest first; then the name.
  const day = (t: string | null) => t?.slice(0, 10) ?? "";
  names.sort(
    (a, b) =>
      (terms.length ? a.name.length - b.name.length : 0) ||
      (day(a.lastSeen) < day(b.lastSeen) ? 1 : day(a.lastSeen) > day(b.lastSeen) ? -1 : 0) ||
      (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  const rows = names.slice(page.offset, page.offset + page.limit);
  const results: z.infer<typeof EventDefinition>[] = await Promise.all(
    rows.map(async (e) => ({
      id: await definitionId(projectId, "event", e.name),
      name: e.name,
      owner: null,
      description: null,
      tags: [],
      created_at: null,
      updated_at: null,
      updated_by: null,
      last_seen_at: e.lastSeen,
      last_updated_at: null,
      verified: false,
      verified_at: null,
      verified_by: null,
      hidden: false,
      is_action: false,
      post_to_slack: false,
      default_columns: [],
    })),
  );
  return paginated(requestUrl, page, names.length, results);
}

/** Each key once, with the type most of its sampled values have. */
function byKey(seen: PropertyKeySeen[]): Map<string, PropertyKeySeen["kind"]> {
  const best = new Map<string, PropertyKeySeen>();
  for (const s of seen) {
    const current = best.get(s.key);
    if (!current || (s.kind && (!current.kind || s.events > current.events))) best.set(s.key, s);
  }
  return new Map([...best].map(([key, s]) => [key, s.kind]));
}

export async function propertyDefinitions(
  store: AnalyticsStore,
  db: Db,
  projectId: number,
  query: z.infer<typeof PropertyDefinitionsQuery>,
  page: Page,
  requestUrl: string,
) {
  const type = query.type ?? "event";
  const eventNames = query.event_names;
  if (eventNames && type !== "event")
    throw validationError("event_names can only be used with type=event.", "event_names");
  const excluded = new Set(query.excluded_properties ?? []);
  const only = query.properties ? new Set(query.properties.split(",").map((p) => p.trim())) : undefined;

  let keys: Map<string, PropertyKeySeen["kind"]>;
  let seenOnEvents: Set<string> | undefined;
  if (type === "person") keys = byKey(await personPropertyKeys(db, projectId, PROPERTY_SAMPLE));
  else if (eventNames?.length) {
    const onEvents = byKey(await store.eventPropertyKeys({ projectId, eventNames, sample: PROPERTY_SAMPLE }));
    seenOnEvents = new Set(onEvents.keys());
    keys = query.filter_by_event_names
      ? onEvents
      : new Map([...byKey(await store.eventPropertyKeys({ projectId, sample: PROPERTY_SAMPLE })), ...onEvents]);
  } else keys = byKey(await store.eventPropertyKeys({ projectId, sample: PROPERTY_SAMPLE }));

  const terms = words(query.search);
  const listed = [...keys]
    .filter(([name, kind]) => {
      if (NEVER_LISTED.has(name) || name.startsWith("$group_") || excluded.has(name)) return false;
      if (only && !only.has(name)) return false;
      if (query.exclude_core_properties && name.startsWith("$")) return false;
      const flag = name.startsWith("$feature/");
      if (query.is_feature_flag !== undefined && flag !== query.is_feature_flag) return false;
      if (query.is_numerical !== undefined && (kind === "Numeric") !== query.is_numerical) return false;
      return matchesAll(name, terms);
    })
    .map(([name, kind]) => ({ name, kind, seen: seenOnEvents ? seenOnEvents.has(name) : null }))
    // PostHog's order: properties seen on the asked events first, then by name.
    .sort(
      (a, b) => Number(b.seen ?? false) - Number(a.seen ?? false) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    );
  const rows = listed.slice(page.offset, page.offset + page.limit);
  const results: z.infer<typeof PropertyDefinition>[] = await Promise.all(
    rows.map(async (p) => ({
      id: await definitionId(projectId, type, p.name),
      name: p.name,
      description: null,
      is_numerical: p.kind === "Numeric",
      property_type: p.kind,
      tags: [],
      updated_at: null,
      updated_by: null,
      is_seen_on_filtered_events: p.seen,
      verified: false,
      verified_at: null,
      verified_by: null,
      hidden: false,
    })),
  );
  return paginated(requestUrl, page, listed.length, results);
}
