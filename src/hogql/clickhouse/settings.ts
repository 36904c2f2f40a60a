import { MAX_LIMIT } from "../limits";

/**
 * The ClickHouse settings every HogQL run sends with its query (as URL parameters of that request
 * only). All of them are sent together: ClickHouse checks a request's settings against the user's
 * own before applying any, so `readonly: 1` does not forbid the others in the same request, while it
 * does forbid any change after it (a SETTINGS clause, which the compiler refuses anyway).
 * Checked against ClickHouse 26.7 in test/clickhouse/hogql.test.ts. The user the worker connects as
 * must not itself be read-only (it also inserts events): at readonly=1 or 2 in its profile, ClickHouse
 * refuses any settings, or a change of `readonly`, in the request.
 */
export const HOGQL_SETTINGS = {
  /** Reads only: no INSERT, DDL or SET, and no setting can be changed by the query itself. */
  readonly: "1",
  /** Seconds, as D1's limit for one query. */
  max_execution_time: 30,
  /** A run returns at most MAX_LIMIT rows (its LIMIT is at most that); more is an error, never a silent cut. */
  max_result_rows: String(MAX_LIMIT),
  result_overflow_mode: "throw",
  /** Bytes of memory one query may use (4 GB; ClickHouse's server-wide limit still applies). */
  max_memory_usage: "4000000000",
  /** A LEFT JOIN's missing side is NULL, as in SQL and HogQL (ClickHouse's default fills in zeros and ''). */
  join_use_nulls: 1,
  /** Event copies share a timestamp, so a partition: FINAL (catalog.ts) need not merge across partitions. */
  do_not_merge_across_partitions_select_final: 1,
} as const;
