import type { MiddlewareHandler } from "hono";
import { createDb, type D1Client } from "../db/client";
import type { AppEnv } from "../env";
import { errorResponse, validationError } from "./errors";

/**
 * Read replicas through D1's Sessions API. Every request runs its queries in one D1 session, so
 * they are sequentially consistent with each other. A request that only reads may start on the
 * nearest replica; any other request starts on the primary, so it reads what it is about to
 * change. Writes always go to the primary.
 *
 * Replicas lag the primary. A client that writes and then reads passes back the bookmark from the
 * write's response (`X-D1-Bookmark`), and the read then runs on a copy at least that fresh (this is
 * how Cloudflare documents it). Every response of a request that queried D1 carries the session's
 * latest bookmark.
 */
export const BOOKMARK_HEADER = "X-D1-Bookmark";

/** D1's bookmarks are hyphenated hex (`00000000-00000009-00000000-<32 hex>`); anything else is a client's mistake. */
const BOOKMARK = /^[0-9a-f-]{1,128}$/i;

export interface SessionPolicy {
  /** Whether a request only reads D1 (a replica may answer it). */
  readsOnly: (method: string, path: string) => boolean;
}

export function d1Sessions(policy: SessionPolicy): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const bookmark = c.req.header(BOOKMARK_HEADER)?.trim();
    if (bookmark && !BOOKMARK.test(bookmark))
      return errorResponse(
        c,
        validationError(`${BOOKMARK_HEADER} must be a bookmark returned by this API.`, BOOKMARK_HEADER),
      );
    // A write starts on the primary, which is at least as fresh as any bookmark a client can hold.
    const constraint = policy.readsOnly(c.req.method, c.req.path) ? bookmark || "first-unconstrained" : "first-primary";
    const session = lazySession(c.env.DB, constraint);
    c.set("db", createDb(session.client));
    await next();
    const latest = session.bookmark();
    if (latest) c.header(BOOKMARK_HEADER, latest);
  };
}

/**
 * A D1 client that opens its session at the first statement: requests served from KV or memory
 * alone (most `/flags` calls, remote config) pay nothing for it and carry no bookmark.
 */
function lazySession(d1: D1Database, constraint: string) {
  let session: D1DatabaseSession | undefined;
  const open = () => (session ??= d1.withSession(constraint));
  const client: D1Client = {
    prepare: (query) => open().prepare(query),
    batch: (statements) => open().batch(statements),
  };
  return { client, bookmark: () => session?.getBookmark() ?? null };
}
