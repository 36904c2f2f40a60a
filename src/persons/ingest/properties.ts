import { isObject } from "../../lib/json";

type Props = Record<string, unknown>;

/**
 * Applies an event's `$set_once`, `$set` and `$unset` to a person's properties in place, in PostHog's
 * order (person-update.ts): set-once only fills missing keys, set overwrites, unset removes.
 * `$unset` is a list of keys or an object whose keys are removed. Returns whether anything changed.
 */
export function applyPropertyUpdates(target: Props, eventProperties: Props): boolean {
  let changed = false;
  const setOnce = isObject(eventProperties.$set_once) ? eventProperties.$set_once : {};
  const set = isObject(eventProperties.$set) ? eventProperties.$set : {};
  const unsetRaw = eventProperties.$unset;
  const unset = Array.isArray(unsetRaw) ? unsetRaw : isObject(unsetRaw) ? Object.keys(unsetRaw) : [];
  for (const [key, value] of Object.entries(setOnce)) {
    if (target[key] === undefined) {
      target[key] = value;
      changed = true;
    }
  }
  for (const [key, value] of Object.entries(set)) {
    if (!sameValue(target[key], value)) {
      target[key] = value;
      changed = true;
    }
  }
  for (const key of unset) {
    if (typeof key === "string" && key in target) {
      delete target[key];
      changed = true;
    }
  }
  return changed;
}

const sameValue = (a: unknown, b: unknown) =>
  a === b || (typeof a === "object" && typeof b === "object" && JSON.stringify(a) === JSON.stringify(b));
