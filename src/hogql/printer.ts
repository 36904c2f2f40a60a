import { ctesOf, type Node, variableName } from "./ast";
import { type CatalogTable, CATALOG_TABLES, catalogField, catalogSource, jsonPath, NON_NULL_COLUMNS, quoteIdent, quoteString, readsPerson, TABLE_COLUMNS } from "./catalog";
import { refuse } from "./errors";
import { aggregateSql, INTERVAL_UNITS, isAggregate, scalarSql } from "./functions";

interface Source {
  alias: string;
  table?: CatalogTable;
  /** Output columns of a subquery or CTE; null when unknown (it selects `*`). */
  columns?: string[] | null;
}
interface Scope {
  sources: Source[];
  aliases: Map<string, Node>;
  resolving: Set<string>;
  ctes: Map<string, { ident: string; columns: string[] | null }>;
  parent?: Scope;
}
export interface Printed {
  sql: string;
  columns: string[] | null;
}

const JOIN_TYPES = new Map([
  ["JOIN", "JOIN"], ["INNER JOIN", "JOIN"], ["LEFT JOIN", "LEFT JOIN"], ["LEFT OUTER JOIN", "LEFT JOIN"],
  ["RIGHT JOIN", "RIGHT JOIN"], ["RIGHT OUTER JOIN", "RIGHT JOIN"], ["FULL JOIN", "FULL JOIN"],
  ["FULL OUTER JOIN", "FULL JOIN"], ["CROSS JOIN", "CROSS JOIN"], [",", "CROSS JOIN"],
]);
const SET_OPERATORS = new Map([["UNION ALL", "UNION ALL"], ["UNION DISTINCT", "UNION"], ["INTERSECT", "INTERSECT"], ["EXCEPT", "EXCEPT"]]);
const CAST_TYPES: [RegExp, (x: string) => string][] = [
  [/^u?int\d*$|^integer$/, (x) => `CAST(${x} AS INTEGER)`],
  [/^float\d*$|^double$|^real$|^decimal/, (x) => `CAST(${x} AS REAL)`],
  [/^string$|^text$|^varchar/, (x) => `CAST(${x} AS TEXT)`],
  [/^date$/, (x) => `date(${x})`],
  [/^datetime\d*$|^timestamp$/, (x) => `strftime('%Y-%m-%dT%H:%M:%fZ', ${x})`],
];
/** LIKE is case-sensitive in HogQL: constant patterns become GLOB patterns. */
const likeToGlob = (pattern: string) =>
  pattern.replace(/[*?[\]%_]/g, (c) => (c === "%" ? "*" : c === "_" ? "?" : `[${c}]`));

/** Prints a HogQL AST as SQLite SQL. Project id binds as `?1`, variables as `?2`, `?3`, ... */
export class Printer {
  readonly variables: string[] = [];
  private readonly withPerson: boolean;
  private subqueries = 0;

  constructor(private readonly text: string, root: Node) {
    this.withPerson = readsPerson(root);
  }

  query(node: Node, parent?: Scope, ctes?: Scope["ctes"]): Printed {
    if (node.node === "SelectQuery") return this.select(node, parent, ctes);
    if (node.node !== "SelectSetQuery") return refuse(`Only SELECT queries are allowed, got ${node.node}`);
    const first = this.query(node.initial_select_query, parent, ctes);
    let sql = first.sql;
    for (const next of node.subsequent_select_queries ?? []) {
      const op = SET_OPERATORS.get(String(next.set_operator).toUpperCase()) ?? refuse(`Set operator ${next.set_operator} is not supported`);
      sql += ` ${op} ${this.query(next.select_query, parent, ctes).sql}`;
    }
    return { sql, columns: first.columns };
  }

  private select(n: Node, parent?: Scope, outerCtes?: Scope["ctes"]): Printed {
    for (const key of ["array_join_op", "window_exprs", "limit_by", "qualify"]) if (n[key]) refuse(`${key.replace(/_/g, " ").toUpperCase()} is not supported`);
    const scope: Scope = { sources: [], aliases: new Map(), resolving: new Set(), ctes: new Map(outerCtes ?? parent?.ctes), parent };
    const withParts: string[] = [];
    for (const cte of ctesOf(n)) {
      if (cte.cte_type !== "subquery") refuse(`CTE ${cte.name} must be a subquery: WITH ${cte.name} AS (SELECT ...)`);
      const inner = this.query(cte.expr, undefined, scope.ctes);
      const ident = quoteIdent(`cte_${cte.name}`);
      scope.ctes.set(cte.name, { ident, columns: inner.columns });
      withParts.push(`${ident} AS (${inner.sql})`);
    }
    let from = "";
    for (let join: Node | null = n.select_from; join; join = join.next_join) {
      const source = this.source(join, scope);
      if (!from) from = ` FROM ${source}`;
      else {
        const type = JOIN_TYPES.get(String(join.join_type ?? "JOIN").toUpperCase()) ?? refuse(`${join.join_type} is not supported`);
        from += ` ${type} ${source}`;
      }
      const constraint = join.constraint;
      if (constraint?.constraint_type === "USING") refuse("JOIN ... USING is not supported; use JOIN ... ON");
      if (constraint) from += ` ON ${this.expr(constraint.expr, scope)}`;
    }
    for (const item of n.select) if (item.node === "Alias") scope.aliases.set(item.alias, item.expr);
    const items: string[] = [];
    const columns: string[] | null = [];
    let known = true;
    for (const item of n.select) {
      if (item.node === "Field" && item.chain.at(-1) === "*") {
        known = false;
        items.push(this.star(item.chain, scope));
        continue;
      }
      const name = this.columnName(item);
      columns.push(name);
      items.push(`${this.expr(item, scope)} AS ${quoteIdent(name)}`);
    }
    let sql = withParts.length ? `WITH ${withParts.join(", ")} ` : "";
    sql += `SELECT ${n.distinct ? "DISTINCT " : ""}${items.join(", ")}${from}`;
    const where = [n.prewhere, n.where].filter(Boolean).map((e) => this.expr(e, scope));
    if (where.length) sql += ` WHERE ${where.join(" AND ")}`;
    if (n.group_by?.length) sql += ` GROUP BY ${this.exprs(n.group_by, scope)}`;
    if (n.having) sql += ` HAVING ${this.expr(n.having, scope)}`;
    if (n.order_by?.length) sql += ` ORDER BY ${n.order_by.map((o: Node) => `${this.expr(o.expr, scope)} ${o.order === "DESC" ? "DESC" : "ASC"}`).join(", ")}`;
    if (n.limit) sql += ` LIMIT ${this.integer(n.limit, "LIMIT")}`;
    if (n.offset) sql += `${n.limit ? "" : " LIMIT -1"} OFFSET ${this.integer(n.offset, "OFFSET")}`;
    return { sql, columns: known ? columns : null };
  }

  private source(join: Node, scope: Scope): string {
    if (join.table_args) refuse("Table functions are not supported");
    const table = join.table;
    if (table.node === "Field") {
      const name = table.chain.join(".");
      const alias = join.alias ?? name;
      const cte = table.chain.length === 1 ? scope.ctes.get(name) : undefined;
      if (cte) {
        scope.sources.push({ alias, columns: cte.columns });
        return `${cte.ident} AS ${quoteIdent(alias)}`;
      }
      if (!(CATALOG_TABLES as readonly string[]).includes(name)) {
        return refuse(`Table "${name}" is not available: queries can read ${CATALOG_TABLES.join(", ")}`);
      }
      scope.sources.push({ alias, table: name as CatalogTable });
      return `${catalogSource(name as CatalogTable, this.withPerson)} AS ${quoteIdent(alias)}`;
    }
    if (table.node === "SelectQuery" || table.node === "SelectSetQuery") {
      const inner = this.query(table, undefined, scope.ctes);
      const alias = join.alias ?? `__subquery${++this.subqueries}`;
      scope.sources.push({ alias, columns: inner.columns });
      return `(${inner.sql}) AS ${quoteIdent(alias)}`;
    }
    return refuse(`${table.node} is not supported in FROM`);
  }

  private star(chain: string[], scope: Scope): string {
    const sources = chain.length === 1 ? scope.sources : scope.sources.filter((s) => s.alias === chain[0]);
    if (!sources.length) refuse(chain.length === 1 ? "SELECT * needs a FROM clause" : `Unknown table alias ${chain[0]}`);
    return sources
      .map((s) => (s.table ? TABLE_COLUMNS[s.table].map((c) => `${quoteIdent(s.alias)}.${quoteIdent(c)} AS ${quoteIdent(c)}`).join(", ") : `${quoteIdent(s.alias)}.*`))
      .join(", ");
  }

  /** PostHog names an unaliased column after its field, or after the expression's text. */
  columnName(item: Node): string {
    if (item.node === "Alias") return item.alias;
    if (item.node === "Field" && typeof item.chain.at(-1) === "string") return item.chain.at(-1);
    if (item.start && item.end) return this.text.slice(item.start.offset, item.end.offset);
    return item.node === "Placeholder" ? (variableName(item) ?? "placeholder") : item.node;
  }

  private integer(node: Node, what: string): number {
    const value = node.node === "Constant" ? node.value : undefined;
    if (typeof value !== "number" || !Number.isInteger(value) || value < 0) return refuse(`${what} must be a non-negative integer literal`);
    return value;
  }

  private exprs(nodes: Node[], scope: Scope): string {
    return nodes.map((e) => this.expr(e, scope)).join(", ");
  }

  expr(n: Node, scope: Scope): string {
    switch (n.node) {
      case "Constant":
        return this.constant(n.value);
      case "Field":
        return this.field(n.chain, scope);
      case "ArrayAccess":
      case "TupleAccess":
        return this.arrayAccess(n, scope);
      case "Alias":
        return this.withResolving(scope, n.alias, () => this.expr(n.expr, scope));
      case "Placeholder":
        return this.placeholder(n);
      case "And":
      case "Or":
        return `(${n.exprs.map((e: Node) => this.expr(e, scope)).join(n.node === "And" ? " AND " : " OR ")})`;
      case "Not":
        return `(NOT ${this.expr(n.expr, scope)})`;
      case "CompareOperation":
        return this.compare(n, scope);
      case "ArithmeticOperation":
        return this.arithmetic(n, scope);
      case "BetweenExpr":
        return `(${this.expr(n.expr, scope)} ${n.negated ? "NOT " : ""}BETWEEN ${this.expr(n.low, scope)} AND ${this.expr(n.high, scope)})`;
      case "Tuple":
        return `(${this.exprs(n.exprs, scope)})`;
      case "TypeCast": {
        const cast = CAST_TYPES.find(([re]) => re.test(String(n.type_name).toLowerCase()));
        return cast ? cast[1](this.expr(n.expr, scope)) : refuse(`Cast to ${n.type_name} is not supported`);
      }
      case "Call":
        return this.call(n, scope);
      case "SelectQuery":
      case "SelectSetQuery":
        return `(${this.query(n, scope).sql})`;
      default:
        return refuse(`${n.node} is not supported`);
    }
  }

  private constant(value: unknown): string {
    if (value === null) return "NULL";
    if (typeof value === "boolean") return value ? "1" : "0";
    if (typeof value === "number") return Number.isFinite(value) ? String(value) : refuse(`${value} is not supported`);
    if (typeof value === "string") return quoteString(value);
    return refuse("Unsupported constant");
  }

  private placeholder(n: Node): string {
    const name = variableName(n);
    const chain: unknown[] = n.expr?.chain ?? n.chain ?? [];
    if (chain.length === 1 && chain[0] === "filters") return "1"; // no dashboard filters apply to an endpoint run
    if (!name) return refuse(`Placeholder {${chain.join(".")}} is not supported; use {variables.name}`);
    let index = this.variables.indexOf(name);
    if (index < 0) index = this.variables.push(name) - 1;
    return `?${index + 2}`;
  }

  private withResolving(scope: Scope, alias: string, print: () => string): string {
    const had = scope.resolving.has(alias);
    scope.resolving.add(alias);
    try {
      return print();
    } finally {
      if (!had) scope.resolving.delete(alias);
    }
  }

  private field(chain: (string | number)[], scope: Scope): string {
    const head = chain[0];
    if (chain.length === 1 && typeof head === "string") {
      const alias = scope.aliases.get(head);
      if (alias && !scope.resolving.has(head)) return `(${this.withResolving(scope, head, () => this.expr(alias, scope))})`;
    }
    for (let s: Scope | undefined = scope; s; s = s.parent) {
      const found = this.resolve(chain, s);
      if (found) return found;
    }
    return refuse(`Unknown field: ${chain.join(".")}`);
  }

  private resolve(chain: (string | number)[], scope: Scope): string | undefined {
    if (chain.length > 1) {
      const source = scope.sources.find((s) => s.alias === chain[0]);
      if (source) return this.onSource(source, chain.slice(1)) ?? refuse(`Unknown field: ${chain.join(".")}`);
    }
    for (const source of scope.sources) {
      const found = this.onSource(source, chain);
      if (found) return found;
    }
    return undefined;
  }

  private onSource(source: Source, chain: (string | number)[]): string | undefined {
    if (source.table) return catalogField(source.table, source.alias, chain);
    const [head, ...rest] = chain;
    if (typeof head !== "string" || (source.columns && !source.columns.includes(head))) return undefined;
    const column = `${quoteIdent(source.alias)}.${quoteIdent(head)}`;
    return rest.length ? `json_extract(${column}, ${jsonPath(rest)})` : column;
  }

  /** `properties['a b'].c` arrives as nested ArrayAccess over a Field: flatten it into a chain. */
  private arrayAccess(n: Node, scope: Scope): string {
    const chain: (string | number)[] = [];
    let cur: Node = n;
    while (cur.node === "ArrayAccess" || cur.node === "TupleAccess") {
      if (cur.node === "TupleAccess") {
        chain.unshift(Number(cur.index));
        cur = cur.tuple;
        continue;
      }
      if (cur.property.node !== "Constant" || !["string", "number"].includes(typeof cur.property.value)) refuse("Only literal keys and indexes are supported in [...]");
      chain.unshift(cur.property.value);
      cur = cur.array;
    }
    if (cur.node !== "Field") return refuse("[...] access is only supported on properties");
    return this.field([...cur.chain, ...chain], scope);
  }

  private nonNull(n: Node, scope: Scope): boolean {
    if (n.node === "Constant") return n.value !== null;
    if (n.node === "Field") {
      const last = n.chain.at(-1);
      return n.chain.length <= 2 && NON_NULL_COLUMNS.has(last) && !scope.aliases.has(n.chain[0]);
    }
    if (n.node === "ArithmeticOperation") return this.nonNull(n.left, scope) && this.nonNull(n.right, scope);
    if (n.node === "Call") {
      const name = n.name.toLowerCase();
      if (["now", "today", "yesterday"].includes(name) || name in INTERVAL_UNITS) return true;
      return /^(tostartof|todate)/.test(name) && n.args.every((a: Node) => this.nonNull(a, scope));
    }
    return false;
  }

  private compare(n: Node, scope: Scope): string {
    const op = String(n.op).toLowerCase();
    const rightNull = n.right.node === "Constant" && n.right.value === null;
    const leftNull = n.left.node === "Constant" && n.left.value === null;
    if ((op === "==" || op === "!=") && (rightNull || leftNull)) {
      return `(${this.expr(rightNull ? n.left : n.right, scope)} IS ${op === "!=" ? "NOT " : ""}NULL)`;
    }
    const left = this.expr(n.left, scope);
    const safe = this.nonNull(n.left, scope) && this.nonNull(n.right, scope);
    // Null-safe as HogQL: a missing value never equals, always differs, and fails other tests.
    const guard = (sql: string, whenNull: 0 | 1) => (safe ? `(${sql})` : `ifnull(${sql}, ${whenNull})`);
    const right = () => this.expr(n.right, scope);
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
        const pattern = n.right.node === "Constant" && typeof n.right.value === "string" ? `GLOB ${quoteString(likeToGlob(n.right.value))}` : `LIKE ${right()}`;
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
        const list = r.node === "Tuple" || r.node === "Array" ? `(${this.exprs(r.exprs, scope)})` : r.node === "SelectQuery" || r.node === "SelectSetQuery" ? `(${this.query(r, scope).sql})` : `(${right()})`;
        return op.endsWith("not in") ? guard(`${left} NOT IN ${list}`, 1) : guard(`${left} IN ${list}`, 0);
      }
      default:
        return refuse(`Operator ${n.op} is not supported`);
    }
  }

  private arithmetic(n: Node, scope: Scope): string {
    const interval = n.right.node === "Call" ? INTERVAL_UNITS[n.right.name.toLowerCase()] : undefined;
    if (interval && (n.op === "+" || n.op === "-")) {
      const [factor, unit] = interval;
      if (n.right.args.length !== 1) refuse(`${n.right.name} takes 1 argument`);
      const amount = `(${this.expr(n.right.args[0], scope)})${factor === 1 ? "" : ` * ${factor}`}`;
      return `strftime('%Y-%m-%dT%H:%M:%fZ', ${this.expr(n.left, scope)}, printf('%+d ${unit}', ${n.op === "-" ? "-" : ""}${amount}))`;
    }
    const left = this.expr(n.left, scope);
    const right = this.expr(n.right, scope);
    if (n.op === "/") return `(CAST(${left} AS REAL) / ${right})`;
    if (["+", "-", "*", "%"].includes(n.op)) return `(${left} ${n.op} ${right})`;
    return refuse(`Operator ${n.op} is not supported`);
  }

  private call(n: Node, scope: Scope): string {
    if (n.params?.length) refuse(`Parametric function ${n.name}(...)(...) is not supported`);
    const name = String(n.name);
    if (name.toLowerCase() in INTERVAL_UNITS) refuse(`${name} can only be added to or subtracted from a date`);
    const args: string[] = (n.args ?? []).map((a: Node) => (a.node === "Field" && a.chain.length === 1 && a.chain[0] === "*" ? "*" : this.expr(a, scope)));
    if (isAggregate(name)) return aggregateSql(name, args, !!n.distinct);
    if (args.includes("*")) refuse(`${name}(*) is not supported`);
    return scalarSql(name, args);
  }
}

