import { quoteString, TEAM_PARAM } from "../../hogql/clickhouse/sql";
import { wellFormed } from "../../lib/text";

/**
 * ClickHouse reads query parameters from the URL, and Cloudflare caps a subrequest's URL at 16 KB:
 * once the parameters of a statement reach this many bytes, further values travel inside the
 * statement (the POST body) as quoted literals instead, so no filter, breakdown or cohort of any
 * size fails for its URL.
 */
const URL_BUDGET = 8_000;

/**
 * The bound values of one ClickHouse analysis statement: each value becomes a typed parameter
 * `{pN:Type}` that ClickHouse substitutes itself, or past the URL budget a quoted literal cast to the
 * type; request text is never spliced into SQL unquoted. Texts are made well-formed first (a lone
 * surrogate is U+FFFD, as stored). The project is always bound as TEAM_PARAM (`{team_id:Int64}`),
 * which the shared reads (the catalog's OVERRIDES) expect.
 */
export class ClickHouseParams {
  readonly values: Record<string, unknown>;
  readonly team = TEAM_PARAM;
  private next = 0;
  private urlBytes = 0;

  constructor(teamId: number) {
    this.values = { team_id: teamId };
  }

  /** A parameter holding `value` as `type` (e.g. `String`, `Int64`, `Array(String)`), by its placeholder. */
  bind(value: unknown, type: string): string {
    const safe = wellFormedValue(value);
    const name = `p${this.next++}`;
    this.urlBytes += name.length + 8 + encodeURIComponent(JSON.stringify(safe) ?? "").length;
    if (this.urlBytes > URL_BUDGET) return `CAST(${literal(safe)} AS ${type})`;
    this.values[name] = safe;
    return `{${name}:${type}}`;
  }

  /** A text parameter (the commonest kind). */
  text(value: string): string {
    return this.bind(value, "String");
  }

  /** An ISO 8601 UTC time as a DateTime64(6, 'UTC') expression. */
  time(iso: string): string {
    return `parseDateTime64BestEffort(${this.text(iso)}, 6, 'UTC')`;
  }
}

const wellFormedValue = (value: unknown): unknown =>
  typeof value === "string" ? wellFormed(value) : Array.isArray(value) ? value.map(wellFormedValue) : value;

/** A value as ClickHouse literal text: quoted strings, numbers, arrays of those (what the analysis binds). */
function literal(value: unknown): string {
  if (typeof value === "string") return quoteString(value);
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (Array.isArray(value)) return `[${value.map(literal).join(", ")}]`;
  throw new Error(`no ClickHouse literal for ${typeof value}`);
}
