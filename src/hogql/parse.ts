import type { HogQLParser } from "@posthog/hogql-parser";
import type { Node } from "./ast";
import { HogQLError } from "./errors";

// Statements other than SELECT, named in the refusal; the grammar would only call them a syntax error.
const REFUSED_STATEMENTS =
  /^\s*(pragma|attach|detach|insert|update|delete|replace|drop|create|alter|vacuum|reindex|analyze|begin|commit|rollback|savepoint|release|explain|upsert|merge|truncate|grant|revoke|set|use|show|describe|desc|system|optimize|rename|kill|exchange|watch|check|backup|restore|undrop)\b/i;

/**
 * Parses HogQL with PostHog's grammar, whichever engine it is printed for; a syntax error or a
 * statement other than SELECT throws HogQLError. The parser is handed in: the worker's is
 * instantiated from the bundled wasm module (parser.ts), Node's from the package itself.
 */
export function parseHogQLWith(parser: HogQLParser, text: string): Node {
  const refused = REFUSED_STATEMENTS.exec(text);
  if (refused)
    throw new HogQLError(`${refused[1].toUpperCase()} statements are not allowed: endpoints run SELECT queries only`);
  const ast = JSON.parse(parser.parseSelect(text)) as Node & { error?: boolean; message?: string };
  if (ast.error) throw new HogQLError(`Invalid HogQL query: ${ast.message}`);
  return ast;
}

/**
 * The query's own top-level LIMIT and OFFSET, which must be integer literals: a run applies them
 * (a run's limit can only lower the LIMIT), so they are taken off a copy of the query that is printed.
 */
export function takeTopLevelWindow(ast: Node): { query: Node; limit: number | null; offset: number } {
  const query: Node = structuredClone(ast);
  if (query.node !== "SelectQuery") return { query, limit: null, offset: 0 };
  const limit = nonNegativeInteger(query.limit, "LIMIT");
  const offset = nonNegativeInteger(query.offset, "OFFSET") ?? 0;
  query.limit = null;
  query.offset = null;
  return { query, limit, offset };
}

/** A LIMIT or OFFSET: absent, or a non-negative integer literal. */
export function nonNegativeInteger(node: Node | null | undefined, what: string): number | null {
  if (!node) return null;
  if (node.node !== "Constant" || typeof node.value !== "number" || !Number.isInteger(node.value) || node.value < 0) {
    throw new HogQLError(`${what} must be a non-negative integer literal`);
  }
  return node.value;
}
