import { validationError } from "../../lib/errors";
import type { EventEntity } from "../../analytics/queries";
import type { Interval } from "../../lib/time/zone";
import { parseFiltersJson, withTestAccounts } from "../../shared/filters";

/**
 * PostHog reads these filters from the query string merged with the JSON body (the body wins).
 * Query values are strings; JSON-valued parameters may come as JSON text or as JSON in the body.
 */
export type Input = Record<string, unknown>;

export function mergeInput(query: Record<string, string>, body: unknown): Input {
  const merged: Input = { ...query };
  if (body && typeof body === "object" && !Array.isArray(body)) Object.assign(merged, body);
  return merged;
}

export function str(input: Input, key: string): string | undefined {
  const v = input[key];
  if (v === undefined || v === null || v === "") return undefined;
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  throw validationError(`${key} must be a string.`, key);
}

export function int(input: Input, key: string, opts: { min?: number; max?: number } = {}): number | undefined {
  const raw = str(input, key);
  if (raw === undefined) return undefined;
  if (!/^-?\d{1,9}$/.test(raw.trim())) throw validationError(`${key} must be an integer.`, key);
  const n = Number(raw);
  if (opts.min !== undefined && n < opts.min) throw validationError(`${key} must be at least ${opts.min}.`, key);
  if (opts.max !== undefined && n > opts.max) throw validationError(`${key} must be at most ${opts.max}.`, key);
  return n;
}

export function bool(input: Input, key: string): boolean | undefined {
  const raw = str(input, key);
  if (raw === undefined) return undefined;
  const v = raw.toLowerCase();
  if (v === "true" || v === "1") return true;
  if (v === "false" || v === "0") return false;
  throw validationError(`${key} must be true or false.`, key);
}

export function json(input: Input, key: string): unknown {
  const v = input[key];
  if (v === undefined || v === null || v === "") return undefined;
  if (typeof v !== "string") return v;
  try {
    return JSON.parse(v);
  } catch {
    throw validationError(`${key} is not valid JSON.`, key);
  }
}

/** A parameter that may be JSON or plain text (e.g. `breakdown=$browser` or `breakdown=["$browser"]`). */
export function jsonOrText(input: Input, key: string): unknown {
  const v = input[key];
  if (typeof v !== "string") return v === "" ? undefined : v;
  if (v === "") return undefined;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

export function oneOf<T extends string>(input: Input, key: string, allowed: readonly T[], fallback: T): T {
  const raw = str(input, key);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw))
    throw validationError(`${key} must be one of: ${allowed.join(", ")}.`, key);
  return raw as T;
}

/**
 * The filters every event of a view must pass: `properties`, and with `filter_test_accounts=true`
 * the project's test-account filters as well (PostHog's Team.test_account_filters).
 */
export function globalFilters(input: Input, testAccountFilters: unknown[]): unknown {
  const properties = parseFiltersJson(input.properties, "properties");
  return withTestAccounts(properties, bool(input, "filter_test_accounts"), testAccountFilters);
}

export const INTERVALS = ["hour", "day", "week", "month"] as const;
export const interval = (input: Input): Interval => oneOf(input, "interval", INTERVALS, "day");

const ACTIONS_REFUSED =
  'Actions are not supported: edgehog has no actions product. Use event entities ({"id": "<event>", "type": "events"}).';

export function parseEntity(raw: unknown, attr: string, index = 0): EventEntity {
  if (!raw || typeof raw !== "object" || Array.isArray(raw))
    throw validationError(`${attr} entries must be objects.`, attr);
  const e = raw as Record<string, unknown>;
  const type = e.type ?? "events";
  if (type === "actions") throw validationError(ACTIONS_REFUSED, attr);
  if (type !== "events") throw validationError(`Entity type must be "events".`, attr);
  // First-time math changes which events count; answering without it would be silently wrong.
  if (typeof e.math === "string" && e.math.startsWith("first_time_for_user")) {
    throw validationError(`Entity math "${e.math}" is not supported on drill-downs.`, attr);
  }
  // PostHog: an `id` of null means "all events".
  if (e.id !== null && e.id !== undefined && typeof e.id !== "string")
    throw validationError("Event entity id must be an event name.", attr);
  const order = typeof e.order === "number" ? e.order : Number(e.order ?? index);
  return {
    event: (e.id as string | null | undefined) ?? null,
    order: Number.isFinite(order) ? order : index,
    properties: parseFiltersJson(e.properties, attr),
  };
}

/** `events` (a JSON list) as entities sorted by `order`; `actions` (non-empty) is refused. */
export function parseEvents(input: Input, opts: { min: number; max: number }): EventEntity[] {
  const actions = json(input, "actions");
  if (Array.isArray(actions) && actions.length) throw validationError(ACTIONS_REFUSED, "actions");
  const events = json(input, "events");
  if (events === undefined) {
    throw validationError(
      opts.min > 1 ? `events must list at least ${opts.min} steps.` : "events is required.",
      "events",
    );
  }
  if (!Array.isArray(events)) throw validationError("events must be a JSON list of entities.", "events");
  const entities = events.map((e, i) => parseEntity(e, "events", i)).sort((a, b) => a.order - b.order);
  if (entities.length < opts.min) throw validationError(`events must list at least ${opts.min} step(s).`, "events");
  if (entities.length > opts.max) throw validationError(`events may list at most ${opts.max} steps.`, "events");
  return entities;
}
