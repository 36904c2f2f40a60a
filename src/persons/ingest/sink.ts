import type { CapturedEvent } from "./event";
import type { IngestPlan } from "./process";
import type { Db } from "../../db/client";
import type { BatchItem } from "../../lib/d1";

/**
 * Where an ingest stores its events, and what the store needs to hear of the person changes: D1
 * keeps events in the ingest's own batch; ClickHouse receives them, with a mirror of the person
 * writes, through the events queue once the batch committed (design.md section 9).
 */
export interface EventSink {
  /** The sink's share of one ingest attempt (called again on each retry of the attempt). */
  prepare(db: Db, projectId: number, plan: IngestPlan, events: CapturedEvent[]): SinkAttempt;
}

export interface SinkAttempt {
  /** Statements run first in the ingest's batch, before any person write (reads of the state it starts from). */
  first: BatchItem[];
  /** Statements run after the person writes, in the same batch. */
  last: BatchItem[];
  /**
   * After the batch committed, given the results of `first` and of `last`. Throwing fails the
   * request although the persons are written (a retry re-plans them to the same state).
   */
  committed(firstResults: D1Result[], lastResults: D1Result[]): Promise<void>;
}
