import type { Env } from "../env";
import { misconfigured } from "./errors";

/**
 * The worker's settings: every variable and secret it reads besides its bindings (typed in
 * src/env.ts, listed with how to set them in docs/operations.md and .dev.vars.example). Each is
 * parsed and validated where it is first used, and again only when its value changes, so a
 * misconfigured deployment fails with an error naming the variable instead of misbehaving.
 */
export interface Setting<T> {
  name: keyof Env & string;
  secret: boolean;
  /** The parsed value, or throws a `SettingError` saying what is wrong with the raw one. */
  parse: (raw: string | undefined) => T;
}

export class SettingError extends Error {}

/** The deployment's root credential: every scope on every project, the only one that creates projects and keys. */
export const ROOT_API_KEY: Setting<string> = {
  name: "ROOT_API_KEY",
  secret: true,
  parse(raw) {
    const key = raw?.trim() ?? "";
    if (!key) throw new SettingError("is not set");
    if (key === "change-me") throw new SettingError("still has the placeholder value from .dev.vars.example");
    if (key.length < 32) throw new SettingError("must be at least 32 characters (a shorter root key is guessable)");
    return key;
  },
};

export type AllowedOrigins = "*" | ReadonlySet<string>;

/** Origins whose browsers may call the management API: comma-separated, `*` for any, unset for none. */
export const CORS_ALLOWED_ORIGINS: Setting<AllowedOrigins> = {
  name: "CORS_ALLOWED_ORIGINS",
  secret: false,
  parse(raw) {
    const entries = (raw ?? "")
      .split(",")
      .map((o) => o.trim().replace(/\/+$/, ""))
      .filter(Boolean);
    if (entries.includes("*")) return "*";
    for (const entry of entries) {
      if (!isOrigin(entry))
        throw new SettingError(
          `lists "${entry}", which is not an origin (scheme://host[:port], e.g. https://admin.example.com)`,
        );
    }
    return new Set(entries);
  },
};

function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return url.origin === value;
  } catch {
    return false;
  }
}

/** Days of events to keep; older ones are deleted by the hourly scheduled run. Unset: keep everything. */
export const EVENT_RETENTION_DAYS: Setting<number | null> = {
  name: "EVENT_RETENTION_DAYS",
  secret: false,
  parse(raw) {
    const text = raw?.trim() ?? "";
    if (!text) return null;
    if (!/^\d+$/.test(text) || Number(text) < 1)
      throw new SettingError(`must be a whole number of days, 1 or more (got "${text}")`);
    return Number(text);
  },
};

/**
 * The ClickHouse server that stores events and answers analytical reads (design.md section 9):
 * its HTTP(S) interface, e.g. `https://abc.eu-west-1.aws.clickhouse.cloud:8443`. Unset: D1 only.
 */
export const CLICKHOUSE_URL: Setting<string | null> = {
  name: "CLICKHOUSE_URL",
  secret: false,
  parse(raw) {
    const text = raw?.trim() ?? "";
    if (!text) return null;
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new SettingError(`is not a URL (got "${text}"; e.g. https://host:8443)`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw new SettingError(`must be an http:// or https:// URL of ClickHouse's HTTP interface (got "${text}")`);
    if (url.username || url.password)
      throw new SettingError("must not hold credentials; set CLICKHOUSE_USER and CLICKHOUSE_PASSWORD instead");
    return text.replace(/\/+$/, "");
  },
};

export const CLICKHOUSE_USER: Setting<string> = {
  name: "CLICKHOUSE_USER",
  secret: false,
  parse: (raw) => raw?.trim() || "default",
};
export const CLICKHOUSE_PASSWORD: Setting<string> = {
  name: "CLICKHOUSE_PASSWORD",
  secret: true,
  parse: (raw) => raw ?? "",
};
export const CLICKHOUSE_DATABASE: Setting<string> = {
  name: "CLICKHOUSE_DATABASE",
  secret: false,
  parse(raw) {
    const name = raw?.trim() || "default";
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw new SettingError(`must be a plain database name (letters, digits, _), got "${name}"`);
    return name;
  },
};

/** Where and as whom the worker reaches ClickHouse; null when CLICKHOUSE_URL is unset (D1 stores events). */
export interface ClickHouseConnection {
  url: string;
  username: string;
  password: string;
  database: string;
}

export function clickhouseConnection(env: Env): ClickHouseConnection | null {
  const url = setting(env, CLICKHOUSE_URL);
  if (!url) return null;
  return {
    url,
    username: setting(env, CLICKHOUSE_USER),
    password: setting(env, CLICKHOUSE_PASSWORD),
    database: setting(env, CLICKHOUSE_DATABASE),
  };
}

/** Every setting, for the check that the documentation lists each one. */
export const SETTINGS: readonly Setting<unknown>[] = [
  ROOT_API_KEY,
  CORS_ALLOWED_ORIGINS,
  EVENT_RETENTION_DAYS,
  CLICKHOUSE_URL,
  CLICKHOUSE_USER,
  CLICKHOUSE_PASSWORD,
  CLICKHOUSE_DATABASE,
];

const parsed = new Map<string, { raw: string | undefined; value: unknown }>();

/** A setting's value from the environment; a 500 naming the variable when it is misconfigured. */
export function setting<T>(env: Env, which: Setting<T>): T {
  // wrangler.toml [vars] may hold numbers (EVENT_RETENTION_DAYS = 30); settings are read as text.
  const stored = env[which.name] as unknown;
  const raw = stored === undefined || stored === null ? undefined : String(stored);
  const cached = parsed.get(which.name);
  if (cached && cached.raw === raw) return cached.value as T;
  let value: T;
  try {
    value = which.parse(raw);
  } catch (error) {
    if (!(error instanceof SettingError)) throw error;
    const how = which.secret ? `wrangler secret put ${which.name}` : `the [vars] of wrangler.toml or the dashboard`;
    throw misconfigured(`${which.name} ${error.message}. Set it with ${how} (locally: .dev.vars).`);
  }
  parsed.set(which.name, { raw, value });
  return value;
}
