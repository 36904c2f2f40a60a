// Types of local-clickhouse.mjs, for the TypeScript that imports it (the ClickHouse test suite).

export interface LocalClickHouse {
  url: string;
  /** Resolves with the exit code once the server has exited. */
  exited: Promise<number | null>;
  /** Stops the server's process group (SIGTERM, as Ctrl-C) and waits until it is gone. */
  stop(): Promise<void>;
}

export interface LocalClickHouseOptions {
  port?: number;
  dataDir?: string;
  env?: Record<string, string>;
  quiet?: boolean;
  signal?: AbortSignal;
}

export declare function startLocalClickHouse(options?: LocalClickHouseOptions): Promise<LocalClickHouse>;
