import type { Node } from "./ast";
import { type CatalogTable, readsPerson, TABLE_COLUMNS } from "./catalog";
import { ExpressionPrinter } from "./expressions";
import type { PrintedItem } from "./query-printer";
import type { Scope, Source } from "./scope";
import { catalogSource, quoteIdent } from "./sqlite-catalog";

export type { Printed } from "./scope";

/**
 * Prints a HogQL AST as SQLite SQL (the query's shape is query-printer.ts's, expressions are
 * expressions.ts's). Every catalog table becomes a subquery filtered by the project (`?1`).
 */
export class Printer extends ExpressionPrinter {
  protected readonly unionDistinct = "UNION";
  private readonly withPerson: boolean;

  constructor(text: string, root: Node) {
    super(text);
    this.withPerson = readsPerson(root);
  }

  quoteIdent(name: string): string {
    return quoteIdent(name);
  }

  protected catalogSource(table: CatalogTable): string {
    return catalogSource(table, this.withPerson);
  }

  protected selectItem(node: Node, scope: Scope): PrintedItem {
    return { sql: this.expr(node, scope) };
  }

  protected condition(node: Node, scope: Scope): string {
    return this.expr(node, scope);
  }

  protected groupKey(node: Node, scope: Scope): string {
    return this.expr(node, scope);
  }

  protected orderKey(node: Node, scope: Scope, descending: boolean): string {
    return `${this.expr(node, scope)} ${descending ? "DESC" : "ASC"}`;
  }

  protected limitClause(limit: number | null, offset: number | null): string {
    return `${limit !== null ? ` LIMIT ${limit}` : ""}${offset !== null ? `${limit !== null ? "" : " LIMIT -1"} OFFSET ${offset}` : ""}`;
  }

  protected starOf(source: Source): string {
    const alias = quoteIdent(source.alias);
    return source.table
      ? TABLE_COLUMNS[source.table].map((c) => `${alias}.${quoteIdent(c)} AS ${quoteIdent(c)}`).join(", ")
      : `${alias}.*`;
  }
}
