import type { CompiledPlan } from "../db/schema";
import type { Node } from "./ast";
import { HogQLError } from "./errors";
import { materializationTransform } from "./materialize";

/**
 * Bumped whenever the SQL either compiler (compile.ts for D1, clickhouse/compile.ts) emits changes:
 * plans saved by an older compiler are recompiled.
 */
export const COMPILER_VERSION = 4;

/**
 * The materialization part of a plan: PostHog's transform of the parsed query (materialize.ts),
 * printed by the engine's printer with its paging tail, or why the query cannot be materialized.
 */
export function compileMaterialization(ast: Node, print: (query: Node) => string): CompiledPlan["materialization"] {
  try {
    const { query, variables, singleRow } = materializationTransform(ast);
    return { sql: print(query), variables, singleRow };
  } catch (error) {
    if (error instanceof HogQLError) return { reason: error.message };
    throw error;
  }
}
