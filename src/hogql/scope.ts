import type { Node } from "./ast";
import type { CatalogTable } from "./catalog";

/**
 * A table visible in a SELECT: a catalog table, or a subquery / CTE with its output columns.
 * `types` are the engine's own tags for those columns, when it tracks them (the ClickHouse printer
 * does, to read a subquery's property column as JSON); the SQLite printer leaves them out.
 */
export interface Source {
  alias: string;
  table?: CatalogTable;
  /** Output columns of a subquery or CTE; null when unknown (it selects `*`). */
  columns?: string[] | null;
  types?: string[] | null;
}
export interface Scope {
  sources: Source[];
  aliases: Map<string, Node>;
  resolving: Set<string>;
  ctes: Map<string, { ident: string; columns: string[] | null; types?: string[] | null }>;
  parent?: Scope;
}
export interface Printed {
  sql: string;
  columns: string[] | null;
  types?: string[] | null;
}
