import { ClickHouseError, type ClickHouseClient } from "@clickhouse/client-web";
import { ApiError, serverError, serviceUnavailable } from "../../lib/errors";
import { queryTimeout } from "../errors";
import { classifyClickHouseQueryError } from "./query-errors";
import type { ClickHouseParams } from "./params";

/** The settings of every analysis statement: D1's time limit, and FINAL read partition by partition (see catalog.ts). */
const ANALYSIS_SETTINGS = {
  max_execution_time: 30,
  max_memory_usage: "4000000000",
  // Large filter values and cohort member lists travel in the statement as literals (params.ts).
  max_query_size: "16777216",
  do_not_merge_across_partitions_select_final: 1,
  output_format_json_quote_64bit_integers: 0,
} as const;

/**
 * Runs one analysis statement (its SQL is ours; the request only reaches it as bound parameters or quoted literals) and
 * returns its rows. A statement past the time limit is D1's 504; a server that is down or busy is a
 * retryable 503; anything else is a 500 whose detail is only logged.
 */
export async function analysisRows<T>(client: ClickHouseClient, query: string, params: ClickHouseParams): Promise<T[]> {
  try {
    const result = await client.query({
      query,
      query_params: params.values,
      format: "JSONEachRow",
      clickhouse_settings: ANALYSIS_SETTINGS,
    });
    return await result.json<T>();
  } catch (error) {
    throw analysisError(error);
  }
}

/**
 * What a failure of ClickHouse during an analysis is for the caller: D1's 504 past the time limit, a
 * retryable 503 for a server that is down or busy, an ApiError as it is, anything else a 500 whose
 * detail is only logged.
 */
export function analysisError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof ClickHouseError && error.type === "TIMEOUT_EXCEEDED") return queryTimeout();
  const failure = classifyClickHouseQueryError(error);
  console.error("persons analysis on ClickHouse failed", failure.kind === "query" ? error : failure.detail);
  return failure.kind === "server" && failure.retryable ? serviceUnavailable() : serverError();
}

/** Runs a statement answering persons as `d1_id` (analysis-persons.ts's personPage), in its order. */
export async function runAnalysis(
  client: ClickHouseClient,
  query: string,
  params: ClickHouseParams,
): Promise<number[]> {
  return (await analysisRows<{ d1_id: number }>(client, query, params)).map((r) => Number(r.d1_id));
}
