import { parseFilterGroup, parseFiltersJson } from "../shared/filters";

/** The `properties` query parameter: JSON of a filter list or group. */
export function parseProperties(raw: string | undefined) {
  const json = parseFiltersJson(raw, null);
  return json === undefined ? undefined : parseFilterGroup(json, "properties", "person");
}
