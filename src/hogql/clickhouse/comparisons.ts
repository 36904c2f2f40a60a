import { type Node, variableName } from "../ast";
import { refuse } from "../errors";
import { nonNull } from "../nullability";
import type { Printed, Scope } from "../scope";
import { quoteIdent } from "./sql";
import { comparable, coerce, jsonAsString, type Typed, unify, type ValueType } from "./values";

/** What comparisons need of the expression printer. */
export interface ComparisonPrinter {
  expr(n: Node, scope: Scope): Typed;
  query(node: Node, parent?: Scope): Printed;
  /** A `{variables.x}` compared with IN: its list parameter. */
  listVariable(n: Node): Typed;
  /** Printing a JOIN ... ON condition, whose equalities must stay plain for ClickHouse to find the join keys. */
  readonly inJoinCondition: boolean;
}

const typed = (sql: string): Typed => ({ sql, type: "number" });
const isNullConstant = (n: Node) => n.node === "Constant" && n.value === null;

const ORDERINGS: Record<string, string> = { "<": "<", "<=": "<=", ">": ">", ">=": ">=" };
const PATTERNS: Record<string, [string, 0 | 1]> = {
  like: ["LIKE", 0],
  "not like": ["NOT LIKE", 1],
  ilike: ["ILIKE", 0],
  "not ilike": ["NOT ILIKE", 1],
};
/** HogQL's regular-expression operators (RE2, as ClickHouse's match); refused on SQLite. */
const REGEXES: Record<string, [boolean, boolean]> = {
  "=~": [false, false],
  "=~*": [false, true],
  "!~": [true, false],
  "!~*": [true, true],
};

/**
 * HogQL's comparison operators, null-safe as HogQL's are (a missing value never equals, always
 * differs, and fails other tests), with operands converted to a common type (values.ts: comparable).
 * Operands that can never be NULL compare plainly, which keeps ClickHouse's indexes usable.
 */
export function compare(p: ComparisonPrinter, n: Node, scope: Scope): Typed {
  const op = String(n.op).toLowerCase();
  if ((op === "==" || op === "!=") && (isNullConstant(n.left) || isNullConstant(n.right))) {
    const other = coerce(p.expr(isNullConstant(n.right) ? n.left : n.right, scope), "value");
    return typed(`${op === "==" ? "isNull" : "isNotNull"}(${other.sql})`);
  }
  if (["in", "not in", "global in", "global not in"].includes(op)) return inList(p, n, scope, op.endsWith("not in"));
  const leftKnown = nonNull(n.left, scope);
  const rightKnown = nonNull(n.right, scope);
  const safe = leftKnown && rightKnown;
  const guard = (sql: string, whenNull: 0 | 1) => typed(safe ? `(${sql})` : `ifNull(${sql}, ${whenNull})`);
  if (op in PATTERNS || op in REGEXES) {
    const left = coerce(p.expr(n.left, scope), "string").sql;
    const right = coerce(p.expr(n.right, scope), "string").sql;
    if (op in PATTERNS) return guard(`${left} ${PATTERNS[op][0]} ${right}`, PATTERNS[op][1]);
    const [negated, caseless] = REGEXES[op];
    const match = `match(${left}, ${caseless ? `concat('(?i)', ${right})` : right})`;
    return negated ? guard(`NOT ${match}`, 1) : guard(match, 0);
  }
  const [l, r] = comparable(p.expr(n.left, scope), p.expr(n.right, scope));
  // NULL == NULL is true in HogQL; when one side is never NULL, a NULL on the other is simply unequal.
  if (op === "==") {
    if (safe || p.inJoinCondition) return typed(`(${l.sql} = ${r.sql})`);
    if (leftKnown || rightKnown) return guard(`${l.sql} = ${r.sql}`, 0);
    return typed(`ifNull(${l.sql} = ${r.sql}, isNull(${l.sql}) AND isNull(${r.sql}))`);
  }
  if (op === "!=") {
    if (safe) return typed(`(${l.sql} != ${r.sql})`);
    if (leftKnown || rightKnown) return guard(`${l.sql} != ${r.sql}`, 1);
    return typed(`ifNull(${l.sql} != ${r.sql}, isNotNull(${l.sql}) OR isNotNull(${r.sql}))`);
  }
  if (op in ORDERINGS) return guard(`${l.sql} ${ORDERINGS[op]} ${r.sql}`, 0);
  return refuse(`Operator ${n.op} is not supported`);
}

/**
 * `x IN (a, b)`, `x IN (SELECT ...)` and `x IN {variables.list}` (a list parameter: `has`). A NULL x
 * is in nothing and not in anything, as on SQLite.
 */
function inList(p: ComparisonPrinter, n: Node, scope: Scope, negated: boolean): Typed {
  const r = n.right;
  const guard = (sql: string) => typed(nonNull(n.left, scope) ? `(${sql})` : `ifNull(${sql}, ${negated ? 1 : 0})`);
  const not = negated ? "NOT " : "";
  if (variableName(r)) {
    const list = p.listVariable(r);
    return guard(`${not}has(${list.sql}, ${coerce(p.expr(n.left, scope), "string").sql})`);
  }
  if (r.node === "Tuple" || r.node === "Array") {
    const [left, ...items] = unify([operand(p, n.left, scope), ...r.exprs.map((e: Node) => p.expr(e, scope))]);
    return guard(`${left.sql} ${not}IN (${items.map((t) => t.sql).join(", ")})`);
  }
  if (r.node === "SelectQuery" || r.node === "SelectSetQuery") {
    const inner = p.query(r, scope);
    const type = (inner.types?.[0] || "unknown") as ValueType;
    // A subquery of property values compares their string form, as a property against a property does.
    const column = inner.columns?.[0];
    const sql =
      type === "json" && column ? `SELECT ${jsonAsString(quoteIdent(column))} FROM (${inner.sql})` : inner.sql;
    const [left] = comparable(operand(p, n.left, scope), { sql: "", type: type === "json" ? "string" : type });
    return guard(`${left.sql} ${not}IN (${sql})`);
  }
  const [left, right] = comparable(operand(p, n.left, scope), p.expr(r, scope));
  return guard(`${left.sql} ${not}IN (${right.sql})`);
}

/** The left side of IN: a tuple `(a, b) IN (...)` compares each element's value. */
function operand(p: ComparisonPrinter, n: Node, scope: Scope): Typed {
  if (n.node !== "Tuple") return p.expr(n, scope);
  return { sql: `(${n.exprs.map((e: Node) => coerce(p.expr(e, scope), "value").sql).join(", ")})`, type: "unknown" };
}
