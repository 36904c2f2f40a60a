import type { Node } from "./ast";
import { variableName } from "./ast";
import { refuse } from "./errors";
import { isAggregate } from "./functions";

/** Prefix of the columns that carry a materialized variable's value. */
export const VARIABLE_COLUMN_PREFIX = "__var_";

/**
 * PostHog's materialization transform: each `expr = {variables.x}` conjunct of the top-level WHERE
 * is removed and `expr` becomes an output column (and a GROUP BY key when the query aggregates),
 * so one stored table answers every value of x: reads filter on that column. LIMIT and OFFSET are
 * dropped here and applied when reading. Throws (HogQLError) with the reason when it cannot.
 */
export function materializationTransform(select: Node): { query: Node; variables: string[]; singleRow: boolean } {
  if (select.node !== "SelectQuery") refuse("Only a single SELECT can be materialized (no UNION)");
  const query: Node = structuredClone(select);
  const conjuncts: Node[] = !query.where ? [] : query.where.node === "And" ? query.where.exprs : [query.where];
  const kept: Node[] = [];
  const columns: [string, Node][] = [];
  for (const c of conjuncts) {
    const variable = c.node === "CompareOperation" ? (variableName(c.right) ?? variableName(c.left)) : undefined;
    if (!variable) {
      kept.push(c);
      continue;
    }
    if (c.op !== "==") refuse(`Only = comparisons with variables can be materialized, found ${c.op} with ${variable}`);
    const expr = variableName(c.right) ? c.left : c.right;
    if (columns.some(([name]) => name === variable)) refuse(`Variable ${variable} is compared more than once`);
    columns.push([variable, expr]);
  }
  query.where = kept.length === 0 ? null : kept.length === 1 ? kept[0] : { ...query.where, exprs: kept };
  const remaining = placeholdersIn(query);
  if (remaining.length)
    refuse(
      `Variable ${remaining[0]} must be compared with = in the WHERE clause (not inside OR, HAVING or a subquery) to materialize`,
    );
  const grouped = !!query.group_by?.length;
  const aggregates = grouped || query.select.some(hasAggregate);
  for (const [name, expr] of columns) {
    query.select.push({ node: "Alias", alias: `${VARIABLE_COLUMN_PREFIX}${name}`, expr, hidden: false });
    if (aggregates) query.group_by = [...(query.group_by ?? []), expr];
  }
  query.limit = null;
  query.offset = null;
  // An aggregate without GROUP BY always answers one row; its table has no row for a value no event has.
  return { query, variables: columns.map(([name]) => name), singleRow: aggregates && !grouped && columns.length > 0 };
}

function placeholdersIn(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(placeholdersIn);
  if (!node || typeof node !== "object") return [];
  const n = node as Node;
  if (n.node === "Placeholder") return [variableName(n) ?? "placeholder"];
  return Object.values(n).flatMap(placeholdersIn);
}

function hasAggregate(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasAggregate);
  if (!node || typeof node !== "object") return false;
  const n = node as Node;
  if (n.node === "SelectQuery" || n.node === "SelectSetQuery") return false;
  if (n.node === "Call" && isAggregate(String(n.name))) return true;
  return Object.values(n).some(hasAggregate);
}
