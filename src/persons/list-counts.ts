import { sha256Hex } from "../lib/crypto";

/**
 * The `count` of a persons list whose matches are only counted by reading them (a filter the
 * property index does not decide on its own, a search): taken afresh on the first page, and
 * remembered for a minute in this isolate for the later pages a client walks, so a walk through a
 * million persons does not count them all again on every page. A later page served by another
 * isolate, or after the minute, counts afresh. `next` never depends on it (the page reads one row
 * past its end).
 */
const REMEMBERED_MS = 60_000;
const MAX_REMEMBERED = 500;
const remembered = new Map<string, { count: number; at: number }>();

/**
 * `count()` on a first page (offset 0), else what it gave for the same list (`list`: its project and
 * query, kept as a digest since filters may be long) within the minute.
 */
export async function walkCount(list: string, offset: number, count: () => Promise<number>): Promise<number> {
  const now = Date.now();
  const key = await sha256Hex(list);
  const known = remembered.get(key);
  if (offset > 0 && known && now - known.at < REMEMBERED_MS) return known.count;
  const fresh = await count();
  remembered.delete(key);
  // The oldest entry goes first (a Map keeps insertion order).
  if (remembered.size >= MAX_REMEMBERED) remembered.delete(remembered.keys().next().value!);
  remembered.set(key, { count: fresh, at: now });
  return fresh;
}
