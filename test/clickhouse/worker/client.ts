import { createClient } from "@clickhouse/client-web";
import { env } from "cloudflare:workers";
import { createProject } from "../../helpers";

/** A client on the worker tests' ClickHouse database (the one the worker's CLICKHOUSE_* bindings name). */
export const clickhouse = () =>
  createClient({
    url: (env as unknown as { CLICKHOUSE_URL: string }).CLICKHOUSE_URL,
    database: (env as unknown as { CLICKHOUSE_DATABASE: string }).CLICKHOUSE_DATABASE,
  });

let projectIdsMoved = false;

/**
 * A project for a test that writes ClickHouse rows. Every test file has its own D1, whose project ids
 * start at 1, but the files share the ClickHouse database: so the first call of a file moves its
 * project ids to a random range of their own, and one file's rows never land in another's project.
 */
export async function clickhouseProject(name?: string) {
  if (!projectIdsMoved) {
    const base = (1 + Math.floor(Math.random() * 20_000)) * 100_000;
    await env.DB.batch([
      env.DB.prepare("DELETE FROM sqlite_sequence WHERE name = 'projects'"),
      env.DB.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES ('projects', ?)").bind(base),
    ]);
    projectIdsMoved = true;
  }
  return createProject(name);
}
