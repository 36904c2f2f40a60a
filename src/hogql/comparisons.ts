import { type Node, variableName } from "./ast";
import { refuse } from "./errors";
import { nonNull } from "./nullability";
import type { Printed, Scope } from "./scope";
import { quoteString } from "../lib/sql";

/** What comparisons need of the expression printer (it prints operands, subqueries and lists). */
export interface ExprPrinter {
  expr(n: Node, scope: Scope): string;
  exprs(nodes: Node[], scope: Scope): string;
  query(node: Node, parent?: Scope): Printed;
  readonly listVariables: Set<string>;
}

/** Timestamps are ISO text: expressions known to produce one (columns, toDateTime, toStartOf*, now). */
export function isTimeExpr(n: Node): boolean {
  if (n.node === "Field")
    return ["timestamp", "created_at"].includes(n.chain.at(-1)) && !n.chain.includes("properties");
  if (n.node === "Call") return /^(tostartof|todatetime$|now$)/i.test(n.name);
  if (n.node === "ArithmeticOperation") return isTimeExpr(n.left);
  return false;
}

/**
 * A datetime literal compared with a timestamp is rewritten to the stored form, so text order is time
 * order: '2026-01-05 10:00:00' becomes '2026-01-05T10:00:00.000Z'. Dates alone already sort right.
 */
export function isoConstant(n: Node): Node {
  const m =
    n.node === "Constant" && typeof n.value === "string"
      ? /^(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d)(:\d\d)?(\.\d{1,3})?Z?$/.exec(n.value)
      : null;
  if (!m) return n;
  const ms = (m[4] ?? ".000").padEnd(4, "0");
  return { ...n, value: `${m[1]}T${m[2]}${m[3] ?? ":00"}${ms}Z` };
}

/** LIKE is case-sensitive in HogQL: constant patterns become GLOB patterns. */
const likeToGlob = (pattern: string) =>
  pattern.replace(/[*?[\]%_]/g, (c) => (c === "%" ? "*" : c === "_" ? "?" : `[${c}]`));

/** HogQL's comparison operators, null-safe as HogQL's are. */
export function compareSql(p: ExprPrinter, original: Node, scope: Scope): string {
  const n = isTimeExpr(original.left)
    ? { ...original, right: isoConstant(original.right) }
    : isTimeExpr(original.right)
      ? { ...original, left: isoConstant(original.left) }
      : original;
  const op = String(n.op).toLowerCase();
  const rightNull = n.right.node === "Constant" && n.right.value === null;
  const leftNull = n.left.node === "Constant" && n.left.value === null;
  if ((op === "==" || op === "!=") && (rightNull || leftNull)) {
    return `(${p.expr(rightNull ? n.left : n.right, scope)} IS ${op === "!=" ? "NOT " : ""}NULL)`;
  }
  const left = p.expr(n.left, scope);
  const safe = nonNull(n.left, scope) && nonNull(n.right, scope);
  // Null-safe as HogQL: a missing value never equals, always differs, and fails other tests.
  const guard = (sql: string, whenNull: 0 | 1) => (safe ? `(${sql})` : `ifnull(${sql}, ${whenNull})`);
  const right = () => p.expr(n.right, scope);
  switch (op) {
    case "==":
      return safe ? `(${left} = ${right()})` : `(${left} IS ${right()})`;
    case "!=":
      return safe ? `(${left} != ${right()})` : `(${left} IS NOT ${right()})`;
    case "<":
    case "<=":
    case ">":
    case ">=":
      return guard(`${left} ${op} ${right()}`, 0);
    case "like":
    case "not like": {
      const pattern =
        n.right.node === "Constant" && typeof n.right.value === "string"
          ? `GLOB ${quoteString(likeToGlob(n.right.value))}`
          : `LIKE ${right()}`;
      return op === "like" ? guard(`${left} ${pattern}`, 0) : guard(`NOT (${left} ${pattern})`, 1);
    }
    case "ilike":
      return guard(`${left} LIKE ${right()}`, 0);
    case "not ilike":
      return guard(`${left} NOT LIKE ${right()}`, 1);
    case "in":
    case "not in":
    case "global in":
    case "global not in": {
      const r = n.right;
      const listVariable = variableName(r);
      if (listVariable) p.listVariables.add(listVariable);
      const list =
        r.node === "Tuple" || r.node === "Array"
          ? `(${p.exprs(r.exprs, scope)})`
          : r.node === "SelectQuery" || r.node === "SelectSetQuery"
            ? `(${p.query(r, scope).sql})`
            : listVariable
              ? `(SELECT value FROM json_each(${right()}))`
              : `(${right()})`;
      return op.endsWith("not in") ? guard(`${left} NOT IN ${list}`, 1) : guard(`${left} IN ${list}`, 0);
    }
    default:
      return refuse(`Operator ${n.op} is not supported`);
  }
}
