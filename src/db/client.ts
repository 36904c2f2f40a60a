import { drizzle } from "drizzle-orm/d1";

/**
 * What queries need of D1: the database itself, or one of its sessions (a request's view that may
 * be served by a read replica, src/lib/d1-sessions.ts). Both prepare and batch statements.
 */
export type D1Client = Pick<D1Database, "prepare" | "batch">;

/**
 * A drizzle database over D1 or a D1 session. No relational schema is registered: we use the query
 * builder only, and without one building an instance is cheap enough to do per request.
 */
export function createDb(d1: D1Client) {
  return Object.assign(drizzle(d1 as D1Database), { $client: d1 });
}

export type Db = ReturnType<typeof createDb>;
