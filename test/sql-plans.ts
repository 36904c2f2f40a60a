import { env } from "cloudflare:workers";

/**
 * The real D1 binding, passed through, recording the statements it binds whose SQL matches `keep`,
 * so a test can ask SQLite how it plans them (`plansOf`).
 */
export function recordingD1(keep: RegExp) {
  const statements: { sql: string; values: unknown[] }[] = [];
  const d1 = {
    prepare(sql: string) {
      const stmt = env.DB.prepare(sql);
      return new Proxy(stmt, {
        get(target, prop) {
          if (prop === "bind")
            return (...values: unknown[]) => {
              if (keep.test(sql)) statements.push({ sql, values });
              return target.bind(...values);
            };
          const v = Reflect.get(target, prop);
          return typeof v === "function" ? v.bind(target) : v;
        },
      });
    },
    batch: (s: D1PreparedStatement[]) => env.DB.batch(s),
  } as unknown as D1Database;
  return { d1, statements };
}

/** SQLite's plan for each statement, its details one per line. */
export async function plansOf(statements: { sql: string; values: unknown[] }[]): Promise<string[]> {
  const plans: string[] = [];
  for (const s of statements) {
    const rows = await env.DB.prepare(`EXPLAIN QUERY PLAN ${s.sql}`)
      .bind(...s.values)
      .all<{ detail: string }>();
    plans.push(rows.results.map((r) => r.detail).join("\n"));
  }
  return plans;
}
