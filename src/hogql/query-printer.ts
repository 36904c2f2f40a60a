import { columnName, ctesOf, isStar, type Node } from "./ast";
import { type CatalogTable, catalogTable } from "./catalog";
import { refuse } from "./errors";
import { nonNegativeInteger } from "./parse";
import type { Printed, Scope, Source } from "./scope";

/** A printed select-list item: its SQL and, for an engine that tracks them, its type tag. */
export interface PrintedItem {
  sql: string;
  type?: string;
}

/** HogQL's join spellings as both engines read them (`JOIN` is an inner join in SQLite and ClickHouse alike). */
const JOIN_TYPES: ReadonlyMap<string, string> = new Map([
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

/** Clauses of PostHog's SelectQuery that no engine here prints: refused by name rather than dropped. */
const UNSUPPORTED_CLAUSES = ["array_join_op", "window_exprs", "limit_by", "qualify", "limit_with_ties"];

/**
 * The shape of a HogQL query, printed the same way for every engine: SELECTs, set operations, CTEs
 * (renamed `cte_<name>` so they can never shadow a real table), joins and subqueries. Every table
 * name must be one of the catalog's, which the engine prints as a subquery confined to the project;
 * anything else is refused. Expressions, identifiers and the catalog's SQL are the engine's
 * (the abstract members).
 */
export abstract class QueryPrinter {
  private subqueries = 0;

  constructor(protected readonly text: string) {}

  /** How the engine spells HogQL's `UNION DISTINCT` (the one set operator the engines spell differently). */
  protected abstract readonly unionDistinct: string;
  abstract quoteIdent(name: string): string;
  /** The subquery a catalog table reads, confined to the project. */
  protected abstract catalogSource(table: CatalogTable): string;
  /** An item of a select list other than `*`; `top` when it is a column of the query's result. */
  protected abstract selectItem(node: Node, scope: Scope, top: boolean): PrintedItem;
  /** A WHERE, HAVING or JOIN ... ON condition. */
  protected abstract condition(node: Node, scope: Scope, clause: "where" | "having" | "on"): string;
  protected abstract groupKey(node: Node, scope: Scope): string;
  protected abstract orderKey(node: Node, scope: Scope, descending: boolean): string;
  protected abstract limitClause(limit: number | null, offset: number | null): string;
  /** What `*` (or `alias.*`) selects of one source. */
  protected abstract starOf(source: Source, top: boolean): string;

  query(node: Node, parent?: Scope, ctes?: Scope["ctes"], top = false): Printed {
    if (node.node === "SelectQuery") return this.select(node, parent, ctes, top);
    if (node.node !== "SelectSetQuery") return refuse(`Only SELECT queries are allowed, got ${node.node}`);
    const first = this.query(node.initial_select_query, parent, ctes, top);
    let sql = first.sql;
    for (const next of node.subsequent_select_queries ?? []) {
      const op = this.setOperator(String(next.set_operator).toUpperCase());
      sql += ` ${op} ${this.query(next.select_query, parent, ctes, top).sql}`;
    }
    return { sql, columns: first.columns, types: first.types };
  }

  private setOperator(op: string): string {
    if (op === "UNION DISTINCT") return this.unionDistinct;
    if (op === "UNION ALL" || op === "INTERSECT" || op === "EXCEPT") return op;
    return refuse(`Set operator ${op} is not supported`);
  }

  private select(n: Node, parent: Scope | undefined, outerCtes: Scope["ctes"] | undefined, top: boolean): Printed {
    for (const key of UNSUPPORTED_CLAUSES)
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
      const ident = this.quoteIdent(`cte_${cte.name}`);
      scope.ctes.set(cte.name, { ident, columns: inner.columns, types: inner.types });
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
      if (constraint) from += ` ON ${this.condition(constraint.expr, scope, "on")}`;
    }
    for (const item of n.select) if (item.node === "Alias") scope.aliases.set(item.alias, item.expr);
    const items: string[] = [];
    const columns: string[] = [];
    const types: string[] = [];
    let known = true;
    for (const item of n.select) {
      if (isStar(item)) {
        known = false;
        items.push(this.star(item.chain, scope, top));
        continue;
      }
      const name = columnName(item, this.text);
      const printed = this.selectItem(item, scope, top);
      columns.push(name);
      types.push(printed.type ?? "");
      items.push(`${printed.sql} AS ${this.quoteIdent(name)}`);
    }
    let sql = withParts.length ? `WITH ${withParts.join(", ")} ` : "";
    sql += `SELECT ${n.distinct ? "DISTINCT " : ""}${items.join(", ")}${from}`;
    const where = [n.prewhere, n.where].filter(Boolean).map((e) => this.condition(e, scope, "where"));
    if (where.length) sql += ` WHERE ${where.join(" AND ")}`;
    if (n.group_by?.length) sql += ` GROUP BY ${n.group_by.map((e: Node) => this.groupKey(e, scope)).join(", ")}`;
    if (n.having) sql += ` HAVING ${this.condition(n.having, scope, "having")}`;
    if (n.order_by?.length) {
      if (n.order_by.some((o: Node) => o.with_fill)) refuse("ORDER BY ... WITH FILL is not supported");
      sql += ` ORDER BY ${n.order_by.map((o: Node) => this.orderKey(o.expr, scope, o.order === "DESC")).join(", ")}`;
    }
    if (n.limit || n.offset)
      sql += this.limitClause(nonNegativeInteger(n.limit, "LIMIT"), nonNegativeInteger(n.offset, "OFFSET"));
    return known ? { sql, columns, types } : { sql, columns: null, types: null };
  }

  private source(join: Node, scope: Scope): string {
    if (join.table_args) refuse("Table functions are not supported");
    if (join.column_aliases?.length)
      refuse("Column aliases on a table are not supported; alias the columns in a subquery");
    if (join.sample) refuse("SAMPLE is not supported");
    if (join.table_final) refuse("FINAL is not supported");
    const table = join.table;
    if (table.node === "Field") {
      const name = table.chain.join(".");
      const alias = join.alias ?? name;
      const cte = table.chain.length === 1 ? scope.ctes.get(name) : undefined;
      if (cte) {
        scope.sources.push({ alias, columns: cte.columns, types: cte.types });
        return `${cte.ident} AS ${this.quoteIdent(alias)}`;
      }
      const catalog = catalogTable(name);
      scope.sources.push({ alias, table: catalog });
      return `${this.catalogSource(catalog)} AS ${this.quoteIdent(alias)}`;
    }
    if (table.node === "SelectQuery" || table.node === "SelectSetQuery") {
      const inner = this.query(table, undefined, scope.ctes);
      const alias = join.alias ?? `__subquery${++this.subqueries}`;
      scope.sources.push({ alias, columns: inner.columns, types: inner.types });
      return `(${inner.sql}) AS ${this.quoteIdent(alias)}`;
    }
    return refuse(`${table.node} is not supported in FROM`);
  }

  private star(chain: string[], scope: Scope, top: boolean): string {
    const sources = chain.length === 1 ? scope.sources : scope.sources.filter((s) => s.alias === chain[0]);
    if (!sources.length)
      refuse(chain.length === 1 ? "SELECT * needs a FROM clause" : `Unknown table alias ${chain[0]}`);
    return sources.map((s) => this.starOf(s, top)).join(", ");
  }
}
