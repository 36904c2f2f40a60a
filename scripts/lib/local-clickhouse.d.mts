// Types of local-clickhouse.mjs, for the TypeScript that imports it (the ClickHouse test suite).

export interface LocalClickHouse {
  url: string;
  /** Stops the server as Ctrl-C does (SIGTERM) and waits for the process to end. */
  stop(): Promise<void>;
}

export declare function startLocalClickHouse(
  dataDir: string,
  env?: Record<string, string>,
  port?: number,
): Promise<LocalClickHouse>;
