import type { Node } from "../ast";
import { type CatalogTable, TABLE_COLUMNS } from "../catalog";
import type { PrintedItem } from "../query-printer";
import type { Scope, Source } from "../scope";
import { catalogSource, COLUMN_TYPES, type PersonReads, personReads } from "./catalog";
import { ClickHouseExpressions } from "./expressions";
import { quoteIdent } from "./sql";
import { asResult, jsonAsNumber, jsonAsString, type Typed, type ValueType } from "./values";
import type { VariableType } from "./variables";

/**
 * Prints a HogQL AST as ClickHouse SQL (the query's shape is QueryPrinter's, expressions are
 * expressions.ts's). Every catalog table becomes a subquery confined to the project
 * (`{team_id:Int64}`, clickhouse/catalog.ts). A property selected as a result column comes back
 * typed; inside subqueries and CTEs it stays JSON text, and the enclosing query reads it as it needs.
 */
export class ClickHousePrinter extends ClickHouseExpressions {
  // ClickHouse refuses a bare UNION unless union_default_mode is set: always say which.
  protected readonly unionDistinct = "UNION DISTINCT";
  private readonly reads: PersonReads;

  constructor(text: string, root: Node, variableTypes: Record<string, VariableType> = {}) {
    super(text, variableTypes);
    this.reads = personReads(root);
  }

  quoteIdent(name: string): string {
    return quoteIdent(name);
  }

  protected catalogSource(table: CatalogTable): string {
    return catalogSource(table, this.reads);
  }

  protected selectItem(node: Node, scope: Scope, top: boolean): PrintedItem {
    const t = this.expr(node, scope);
    return top ? { sql: asResult(t).sql, type: t.type } : { sql: t.sql, type: t.type };
  }

  protected condition(node: Node, scope: Scope, clause: "where" | "having" | "on"): string {
    if (clause !== "on") return this.truth(node, scope);
    this.inJoinCondition = true;
    try {
      return this.truth(node, scope);
    } finally {
      this.inJoinCondition = false;
    }
  }

  protected groupKey(node: Node, scope: Scope): string {
    return this.expr(node, scope).sql;
  }

  /**
   * NULLs first ascending and last descending, as SQLite orders them. A property orders as SQLite
   * orders JSON values: missing first, then numbers by value, then text.
   */
  protected orderKey(node: Node, scope: Scope, descending: boolean): string {
    const t = this.expr(node, scope);
    const dir = descending ? "DESC" : "ASC";
    if (t.type !== "json") return `${t.sql} ${dir} NULLS ${descending ? "LAST" : "FIRST"}`;
    const s = jsonAsString(t.sql);
    const n = jsonAsNumber(t.sql);
    return `isNotNull(${s}) ${dir}, ${n} ${dir} NULLS ${descending ? "FIRST" : "LAST"}, ${s} ${dir}`;
  }

  protected limitClause(limit: number | null, offset: number | null): string {
    return `${limit !== null ? ` LIMIT ${limit}` : ""}${offset !== null ? ` OFFSET ${offset}` : ""}`;
  }

  /** A catalog table's columns, or a subquery's known columns (properties typed in a result); else `alias.*`. */
  protected starOf(source: Source, top: boolean): string {
    const alias = quoteIdent(source.alias);
    const columns = source.table ? TABLE_COLUMNS[source.table] : source.columns;
    if (!columns) return `${alias}.*`;
    return columns
      .map((column, i) => {
        const type = (source.table ? COLUMN_TYPES[source.table][column] : source.types?.[i]) || "unknown";
        const t: Typed = { sql: `${alias}.${quoteIdent(column)}`, type: type as ValueType };
        return `${(top ? asResult(t) : t).sql} AS ${quoteIdent(column)}`;
      })
      .join(", ");
  }
}
