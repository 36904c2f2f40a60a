import { validationError } from "../lib/errors";
import { parseFilterGroup } from "../shared/filters";

/** The `properties` query parameter: JSON of a filter list or group. */
export function parseProperties(raw: string | undefined) {
  if (raw === undefined || raw === "") return undefined;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw validationError("Properties are unparsable!");
  }
  return parseFilterGroup(json, "properties", "person");
}
