import { refuse } from "./errors";

/**
 * The tables a HogQL query may read. Each reference compiles to a subquery over the D1 table that
 * is filtered by the caller's project (`?1`), so no query can see another project's rows and no
 * other table (sqlite_master, keys, ...) is reachable: names outside this catalog are refused.
 */
export type CatalogTable = "events" | "persons";
export const CATALOG_TABLES: readonly CatalogTable[] = ["events", "persons"];

export const PROJECT_PARAM = "?1";

/** Public columns, in the order `*` expands them. */
export const TABLE_COLUMNS: Record<CatalogTable, string[]> = {
  events: ["uuid", "event", "properties", "timestamp", "distinct_id", "person_id", "created_at"],
  persons: ["id", "created_at", "properties", "is_identified"],
};

/** Columns that are never NULL (comparisons on them compile without null guards, keeping indexes usable). */
export const NON_NULL_COLUMNS = new Set(["uuid", "event", "timestamp", "distinct_id", "created_at", "id"]);

/** The person of an event is resolved as PostHog does: through the distinct id's current person. */
export function catalogSource(table: CatalogTable, withPerson: boolean): string {
  if (table === "persons") {
    return `(SELECT uuid AS id, created_at, properties, is_identified FROM persons WHERE project_id = ${PROJECT_PARAM})`;
  }
  if (!withPerson) {
    return `(SELECT uuid, event, properties, timestamp, distinct_id, NULL AS person_id, created_at FROM events WHERE project_id = ${PROJECT_PARAM})`;
  }
  return (
    "(SELECT e.uuid, e.event, e.properties, e.timestamp, e.distinct_id, p.uuid AS person_id, e.created_at," +
    " p.properties AS __person_properties, p.created_at AS __person_created_at, p.is_identified AS __person_is_identified" +
    " FROM events AS e LEFT JOIN person_distinct_ids AS pdi ON pdi.project_id = e.project_id AND pdi.distinct_id = e.distinct_id" +
    ` LEFT JOIN persons AS p ON p.id = pdi.person_id WHERE e.project_id = ${PROJECT_PARAM})`
  );
}

export const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;
export const quoteString = (value: string) => `'${value.replaceAll("'", "''")}'`;

/** A SQLite JSON path for a property chain; HogQL array indexes are 1-based. */
export function jsonPath(chain: (string | number)[]): string {
  let path = "$";
  for (const part of chain) {
    if (typeof part === "number") {
      if (!Number.isInteger(part) || part < 1) refuse(`Array index ${part} is not supported (indexes start at 1)`);
      path += `[${part - 1}]`;
    } else {
      if (part.includes('"')) refuse(`Property name ${JSON.stringify(part)} contains a double quote`);
      path += `."${part}"`;
    }
  }
  return quoteString(path);
}

/**
 * Resolves a column chain on a catalog table (alias already stripped) to SQL.
 * Returns undefined when the table has no such column.
 */
export function catalogField(table: CatalogTable, alias: string, chain: (string | number)[]): string | undefined {
  const col = (name: string) => `${quoteIdent(alias)}.${quoteIdent(name)}`;
  const [head, ...rest] = chain;
  if (typeof head !== "string") return undefined;
  if (head === "properties")
    return rest.length ? `json_extract(${col("properties")}, ${jsonPath(rest)})` : col("properties");
  if (table === "events") {
    if (head === "$session_id" || head === "$window_id")
      return rest.length ? undefined : `json_extract(${col("properties")}, ${jsonPath([head])})`;
    if (head === "person" || head === "pdi") {
      const [what, ...more] = rest;
      if (what === undefined) return undefined;
      if (what === "id" || what === "person_id") return more.length ? undefined : col("person_id");
      if (what === "properties")
        return more.length
          ? `json_extract(${col("__person_properties")}, ${jsonPath(more)})`
          : col("__person_properties");
      if (what === "created_at" || what === "is_identified") return more.length ? undefined : col(`__person_${what}`);
      return undefined;
    }
  }
  if (rest.length === 0 && TABLE_COLUMNS[table].includes(head)) return col(head);
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
