// Types of person-mirror-copy.mjs, for the TypeScript that imports it (the ClickHouse test suite).
import type { ClickHouseClient } from "@clickhouse/client-web";

export declare const COPY_CHUNK: number;

export declare function copyPersonsToMirror(options: {
  client: ClickHouseClient;
  read: (sql: string) => any[] | Promise<any[]>;
  log?: (line: string) => void;
  chunk?: number;
}): Promise<number>;
