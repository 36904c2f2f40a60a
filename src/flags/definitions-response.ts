import type { Context } from "hono";
import type { AppEnv } from "../env";
import { readDefinitions, type CachedDefinitions, type Variant } from "./definitions-cache";

/** PostHog V-B: `send_cohorts` present without a value, or truthy, means true; `false`/`0` means false. */
export function cohortVariant(raw: string | undefined): Variant {
  if (raw === undefined) return "plain";
  return /^(false|0|no|off)$/i.test(raw.trim()) ? "plain" : "cohorts";
}

const etagValue = (tag: string) => tag.trim().replace(/^W\//, "").replace(/^"|"$/g, "");

/** Whether an If-None-Match header names the entry's ETag (weak or strong form, or a list). */
function matches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const want = etagValue(etag);
  return header.split(",").some((tag) => tag.trim() === "*" || etagValue(tag) === want);
}

/** The cached payload for a token, or undefined for an unknown token. */
export const definitionsFor = (c: Context<AppEnv>, token: string, variant: Variant) =>
  readDefinitions(c.env, c.get("db"), token, variant);

/** 200 with the payload, or 304 when If-None-Match names its ETag; both carry the ETag. */
export function definitionsResponse(c: Context<AppEnv>, entry: CachedDefinitions): Response {
  const headers = { ETag: entry.etag, "Cache-Control": "private, must-revalidate" };
  if (matches(c.req.header("if-none-match"), entry.etag)) return c.body(null, 304, headers);
  return c.body(entry.body, 200, { ...headers, "Content-Type": "application/json" });
}
