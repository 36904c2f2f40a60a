import { ctesOf, type Node, variableName } from "./ast";
import { type CatalogTable, CATALOG_TABLES, catalogSource, quoteIdent, readsPerson, TABLE_COLUMNS } from "./catalog";
import { refuse } from "./errors";
import { ExpressionPrinter } from "./expressions";
import type { Printed, Scope } from "./scope";

export type { Printed } from "./scope";

const JOIN_TYPES = new Map([
  ["JOIN", "JOIN"],
  ["INNER JOIN", "JOIN"],
  ["LEFT JOIN", "LEFT JOIN"],
  ["LEFT OUTER JOIN", "LEFT JOIN"],
  ["RIGHT JOIN", "RIGHT JOIN"],
  ["RIGHT OUTER JOIN", "RIGHT JOIN"],
  ["FULL JOIN", "FULL JOIN"],
  ["FULL OUTER JOIN", "FULL JOIN"],
  ["CROSS JOIN", "CROSS JOIN"],
  [",", "CROSS JOIN"],
]);
const SET_OPERATORS = new Map([
  ["UNION ALL", "UNION ALL"],
  ["UNION DISTINCT", "UNION"],
  ["INTERSECT", "INTERSECT"],
  ["EXCEPT", "EXCEPT"],
]);

/**
 * Prints a HogQL AST as SQLite SQL: SELECTs, set operations, CTEs (renamed `cte_<name>` so they can
 * never shadow a real table), joins and subqueries. Every catalog table becomes a subquery filtered
 * by the project (`?1`); any other table name is refused.
 */
export class Printer extends ExpressionPrinter {
  private readonly withPerson: boolean;
  private subqueries = 0;

  constructor(
    private readonly text: string,
    root: Node,
  ) {
    super();
    this.withPerson = readsPerson(root);
  }

  query(node: Node, parent?: Scope, ctes?: Scope["ctes"]): Printed {
    if (node.node === "SelectQuery") return this.select(node, parent, ctes);
    if (node.node !== "SelectSetQuery") return refuse(`Only SELECT queries are allowed, got ${node.node}`);
    const first = this.query(node.initial_select_query, parent, ctes);
    let sql = first.sql;
    for (const next of node.subsequent_select_queries ?? []) {
      const op =
        SET_OPERATORS.get(String(next.set_operator).toUpperCase()) ??
        refuse(`Set operator ${next.set_operator} is not supported`);
      sql += ` ${op} ${this.query(next.select_query, parent, ctes).sql}`;
    }
    return { sql, columns: first.columns };
  }

  private select(n: Node, parent?: Scope, outerCtes?: Scope["ctes"]): Printed {
    for (const key of ["array_join_op", "window_exprs", "limit_by", "qualify", "limit_with_ties"])
      if (n[key]) refuse(`${key.replace(/_/g, " ").toUpperCase()} is not supported`);
    const scope: Scope = {
      sources: [],
      aliases: new Map(),
      resolving: new Set(),
      ctes: new Map(outerCtes ?? parent?.ctes),
      parent,
    };
    const withParts: string[] = [];
    for (const cte of ctesOf(n)) {
      if (cte.columns?.length)
        refuse(`Column lists on CTE ${cte.name} are not supported; alias the columns in its SELECT`);
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
        const type =
          JOIN_TYPES.get(String(join.join_type ?? "JOIN").toUpperCase()) ??
          refuse(`${join.join_type} is not supported`);
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
    if (n.order_by?.length)
      sql += ` ORDER BY ${n.order_by.map((o: Node) => `${this.expr(o.expr, scope)} ${o.order === "DESC" ? "DESC" : "ASC"}`).join(", ")}`;
    if (n.limit) sql += ` LIMIT ${this.integer(n.limit, "LIMIT")}`;
    if (n.offset) sql += `${n.limit ? "" : " LIMIT -1"} OFFSET ${this.integer(n.offset, "OFFSET")}`;
    return { sql, columns: known ? columns : null };
  }

  private source(join: Node, scope: Scope): string {
    if (join.table_args) refuse("Table functions are not supported");
    if (join.column_aliases?.length)
      refuse("Column aliases on a table are not supported; alias the columns in a subquery");
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
    if (!sources.length)
      refuse(chain.length === 1 ? "SELECT * needs a FROM clause" : `Unknown table alias ${chain[0]}`);
    return sources
      .map((s) =>
        s.table
          ? TABLE_COLUMNS[s.table].map((c) => `${quoteIdent(s.alias)}.${quoteIdent(c)} AS ${quoteIdent(c)}`).join(", ")
          : `${quoteIdent(s.alias)}.*`,
      )
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
    if (typeof value !== "number" || !Number.isInteger(value) || value < 0)
      return refuse(`${what} must be a non-negative integer literal`);
    return value;
  }
}
