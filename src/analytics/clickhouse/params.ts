import { TEAM_PARAM } from "../../hogql/clickhouse/sql";

const MAX_PARAMS_URL_LENGTH = 1_000_000;

/**
 * The bound values of one ClickHouse analysis statement: each value becomes a typed parameter
 * `{pN:Type}` that ClickHouse substitutes itself, so no request text is ever spliced into SQL. The
 * project is always bound as TEAM_PARAM (`{team_id:Int64}`), which the shared reads (the catalog's
 * OVERRIDES) expect.
 */
export class ClickHouseParams {
  readonly values: Record<string, unknown>;
  readonly team = TEAM_PARAM;
  private next = 0;

  constructor(teamId: number) {
    this.values = { team_id: teamId };
  }

  /** A parameter holding `value` as `type` (e.g. `String`, `Int64`, `Array(String)`), by its placeholder. */
  bind(value: unknown, type: string): string {
    const name = `p${this.next++}`;
    this.values[name] = value;
    return `{${name}:${type}}`;
  }

  /** A text parameter (the commonest kind). */
  text(value: string): string {
    return this.bind(value, "String");
  }

  /**
   * Whether the parameters fit in the URL they travel in (ClickHouse reads query parameters from the
   * URL and refuses one over http_max_uri_size, 1 MiB by default), with room for the rest of the URL.
   */
  fitInUrl(): boolean {
    let length = 0;
    for (const [name, value] of Object.entries(this.values))
      length += name.length + 8 + encodeURIComponent(typeof value === "string" ? value : JSON.stringify(value)).length;
    return length <= MAX_PARAMS_URL_LENGTH;
  }

  /** An ISO 8601 UTC time as a DateTime64(6, 'UTC') expression. */
  time(iso: string): string {
    return `parseDateTime64BestEffort(${this.text(iso)}, 6, 'UTC')`;
  }
}
