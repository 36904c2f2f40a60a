import { sql, type SQL } from "drizzle-orm";
import { filterValues, isGroup, type FilterGroup, type PropertyFilter } from "../shared/filters";

/**
 * What the persons' property index (`person_property_values`, drizzle/0008) can answer of a filter:
 * a person property that is set (`is_set`), or one of some values (`exact`, `in`). The index holds
 * each value's first 100 characters as the filter compiler's text, so it decides a value shorter
 * than that exactly; a longer one is left to the JSON.
 */
export interface IndexedCondition {
  key: string;
  /** The values one of which the property holds; none for `is_set`. */
  values?: string[];
}

/** Characters of a value the index keeps (drizzle/0008's `substr(..., 1, 100)`). */
const INDEXED_CHARACTERS = 100;

/**
 * The conditions of a filter that every matching person meets and the index answers (the filter's
 * conjuncts, through nested AND groups), and whether they are the whole filter, so that the persons
 * meeting them all are exactly its matches.
 */
export function indexedConditions(group: FilterGroup): { conditions: IndexedCondition[]; whole: boolean } {
  const conditions: IndexedCondition[] = [];
  let whole = true;
  const visit = (node: FilterGroup | PropertyFilter) => {
    if (isGroup(node)) {
      if (node.type === "AND" || node.values.length === 1) node.values.forEach(visit);
      else whole = false;
      return;
    }
    const condition = indexedCondition(node);
    if (condition) conditions.push(condition);
    else whole = false;
  };
  visit(group);
  return { conditions, whole };
}

function indexedCondition(f: PropertyFilter): IndexedCondition | undefined {
  // json_each names a key as it is; a quote or backslash in it is spelt differently in a JSON path.
  if (f.kind !== "person" || /["\\]/.test(f.key)) return undefined;
  if (f.operator === "is_set") return { key: f.key };
  if (f.operator !== "exact" && f.operator !== "in") return undefined;
  const values = filterValues(f);
  return values.every((v) => [...v].length < INDEXED_CHARACTERS) ? { key: f.key, values } : undefined;
}

/** The ids of the project's persons meeting a condition. */
export const personIdsMeeting = (projectId: number, c: IndexedCondition): SQL =>
  sql`SELECT person_id FROM person_property_values WHERE ${meets(projectId, c)}`;

/** How many of the project's persons meet a condition (from the index alone). */
export const countMeeting = (projectId: number, c: IndexedCondition): SQL =>
  sql`(SELECT count(*) FROM person_property_values WHERE ${meets(projectId, c)})`;

const meets = (projectId: number, c: IndexedCondition): SQL =>
  c.values
    ? sql`project_id = ${projectId} AND key = ${c.key} AND value IN (SELECT value FROM json_each(${JSON.stringify(c.values)}))`
    : sql`project_id = ${projectId} AND key = ${c.key}`;
