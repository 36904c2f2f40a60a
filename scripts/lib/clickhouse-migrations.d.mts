// Types of clickhouse-migrations.mjs, for the TypeScript that imports it (the ClickHouse test suite).

export declare const MIGRATIONS_DIR: string;

export declare class MigrationError extends Error {}

export interface Migration {
  version: number;
  name: string;
  file: string;
  statements: string[];
}

export declare function listMigrations(dir?: string): Migration[];

export declare function splitStatements(sql: string): string[];

export interface MigrateOptions {
  url: string;
  username?: string;
  password?: string;
  database?: string;
  dir?: string;
  log?: (line: string) => void;
}

export declare function migrate(options: MigrateOptions): Promise<{ applied: string[]; skipped: string[] }>;
