/**
 * A failure that concerns only the flags that needed some data (flag-eval.md §5, error records):
 * the evaluator turns it into `failed: true` for that flag and evaluates the others.
 * `code` is the record's reason code (PostHog's error codes: `database_error`,
 * `hash_key_override_error`, ...).
 */
export class FlagEvaluationError extends Error {
  constructor(
    readonly code: string,
    message = code,
  ) {
    super(message);
  }
}

/** Reason descriptions of error records. */
const DESCRIPTIONS: Record<string, string> = {
  database_error: "Stored data needed by this flag could not be read",
  hash_key_override_error: "The experience-continuity hash key could not be read",
  dependency_failed: "A flag this flag depends on could not be evaluated",
  evaluation_error: "The flag could not be evaluated",
};

export const errorDescription = (code: string) => DESCRIPTIONS[code] ?? DESCRIPTIONS.evaluation_error;

/**
 * A view of `known` in which reading any other key throws `code`: stored data that could not be
 * read fails exactly the flags that look at it. `known` (what the request sent) still answers.
 */
export function unavailable<T extends Record<string, unknown>>(known: T, code: string): T {
  const fail = (key: string | symbol) => {
    throw new FlagEvaluationError(code, `${code}: ${String(key)}`);
  };
  return new Proxy(known, {
    get: (target, key) =>
      typeof key === "symbol" || Object.hasOwn(target, key) ? Reflect.get(target, key) : fail(key),
    has: (target, key) => (Object.hasOwn(target, key) ? true : fail(key)),
    getOwnPropertyDescriptor: (target, key) =>
      Object.hasOwn(target, key) ? Reflect.getOwnPropertyDescriptor(target, key) : fail(key),
  });
}

/** A view of `target` in which reading one of `failed` throws `code` (the other keys answer normally). */
export function withFailedKeys<T extends Record<string, unknown>>(
  target: T,
  failed: ReadonlySet<string>,
  code: string,
): T {
  if (!failed.size) return target;
  const check = (key: string | symbol) => {
    if (typeof key === "string" && failed.has(key)) throw new FlagEvaluationError(code, `${code}: ${key}`);
  };
  return new Proxy(target, {
    get: (t, key) => (check(key), Reflect.get(t, key)),
    has: (t, key) => (check(key), Reflect.has(t, key)),
    getOwnPropertyDescriptor: (t, key) => (check(key), Reflect.getOwnPropertyDescriptor(t, key)),
  });
}
