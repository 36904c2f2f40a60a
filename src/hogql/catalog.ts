import { refuse } from "./errors";

/**
 * The tables a HogQL query may read, whatever the engine. Each engine prints a reference as a
 * subquery confined to the caller's project (SQLite: sqlite-catalog.ts, ClickHouse: clickhouse/catalog.ts),
 * so no query can see another project's rows and no other table (sqlite_master, system.*, keys, ...)
 * is reachable: names outside this catalog are refused.
 */
export type CatalogTable = "events" | "persons";
export const CATALOG_TABLES: readonly CatalogTable[] = ["events", "persons"];

/** Public columns, in the order `*` expands them. */
export const TABLE_COLUMNS: Record<CatalogTable, string[]> = {
  events: ["uuid", "event", "properties", "timestamp", "distinct_id", "person_id", "created_at"],
  persons: ["id", "created_at", "properties", "is_identified"],
};

/** Columns that are never NULL (comparisons on them compile without null guards, keeping indexes usable). */
export const NON_NULL_COLUMNS = new Set(["uuid", "event", "timestamp", "distinct_id", "created_at", "id"]);

/** The catalog table a FROM names; any other name (a system table, another database, D1's own tables) is refused, naming it. */
export function catalogTable(name: string): CatalogTable {
  if (!(CATALOG_TABLES as readonly string[]).includes(name))
    return refuse(`Table "${name}" is not available: queries can read ${CATALOG_TABLES.join(", ")}`);
  return name as CatalogTable;
}

/**
 * What a column chain on a catalog table (alias already stripped) reads, whatever the engine: a
 * column of the table's subquery, and a JSON path into it when the column holds properties
 * (`properties.$browser`, `person.properties.email`). Undefined when the table has no such column.
 */
export interface ColumnReference {
  column: string;
  path: (string | number)[];
}

export function catalogReference(table: CatalogTable, chain: (string | number)[]): ColumnReference | undefined {
  const [head, ...rest] = chain;
  if (typeof head !== "string") return undefined;
  if (head === "properties") return { column: "properties", path: rest };
  if (table === "events") {
    if (head === "$session_id" || head === "$window_id")
      return rest.length ? undefined : { column: "properties", path: [head] };
    if (head === "person" || head === "pdi") {
      const [what, ...more] = rest;
      if (what === undefined) return undefined;
      if (what === "id" || what === "person_id") return more.length ? undefined : { column: "person_id", path: [] };
      if (what === "properties") return { column: "__person_properties", path: more };
      if (what === "created_at" || what === "is_identified")
        return more.length ? undefined : { column: `__person_${what}`, path: [] };
      return undefined;
    }
  }
  if (rest.length === 0 && TABLE_COLUMNS[table].includes(head)) return { column: head, path: [] };
  return undefined;
}

/** Whether any field in the tree reads an event's person (then the distinct-id join is compiled in). */
export function readsPerson(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(readsPerson);
  if (!node || typeof node !== "object") return false;
  const n = node as Record<string, unknown>;
  if (
    n.node === "Field" &&
    Array.isArray(n.chain) &&
    n.chain.slice(0, 2).some((c) => c === "person" || c === "person_id" || c === "pdi")
  ) {
    return true;
  }
  if (n.node === "Field" && Array.isArray(n.chain) && n.chain.at(-1) === "*") return true;
  return Object.values(n).some(readsPerson);
}
