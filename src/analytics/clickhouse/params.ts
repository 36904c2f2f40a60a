import { TEAM_PARAM } from "../../hogql/clickhouse/sql";

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

  /** An ISO 8601 UTC time as a DateTime64(6, 'UTC') expression. */
  time(iso: string): string {
    return `parseDateTime64BestEffort(${this.text(iso)}, 6, 'UTC')`;
  }
}
