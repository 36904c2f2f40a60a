import type { CatalogTable } from "./catalog";
import { jsonPathKey } from "../lib/json";
import { refuse } from "./errors";
import { quoteString } from "../lib/sql";

/** The catalog as SQLite reads it: D1's tables, filtered by the project bound as `?1`. */
export const PROJECT_PARAM = "?1";

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

/** A SQLite JSON path for a property chain; HogQL array indexes are 1-based. */
export function jsonPath(chain: (string | number)[]): string {
  let path = "$";
  for (const part of chain) {
    if (typeof part === "number") {
      if (!Number.isInteger(part) || part < 1) refuse(`Array index ${part} is not supported (indexes start at 1)`);
      path += `[${part - 1}]`;
    } else {
      path += jsonPathKey(part);
    }
  }
  return quoteString(path);
}
