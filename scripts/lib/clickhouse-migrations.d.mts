// Types of clickhouse-migrations.mjs, for the TypeScript that imports it (the ClickHouse test suite).

export declare const MIGRATIONS_DIR: string;

export declare class MigrationError extends Error {}

export interface Migration {
  version: number;
  name: string;
  file: string;
  statements: string[];
  /** The persons mirror must hold every D1 person after this migration (`migrate` runs copyPersons). */
  copiesPersons: boolean;
}

export declare function listMigrations(dir?: string): Migration[];

export declare function splitStatements(sql: string): string[];

export interface MigrateOptions {
  url: string;
  username?: string;
  password?: string;
  database?: string;
  dir?: string;
  /** The deployment's identity (D1's `deployment` table): binds the database to it, refusing another's. */
  deployment?: string;
  /** Rebinds a database bound to another deployment to this one (a restored D1 backup). */
  adopt?: boolean;
  log?: (line: string) => void;
  /** Copies D1's persons into the mirror: before a new binding is written, or after a migration that needs it. */
  copyPersons?: (client: import("@clickhouse/client-web").ClickHouseClient) => Promise<unknown>;
}

export interface Binding {
  deployment: string;
  previous: string | null;
  changed: boolean;
}

export declare function migrate(
  options: MigrateOptions,
): Promise<{ applied: string[]; skipped: string[]; binding: Binding | null }>;

export interface DatabaseOptions {
  url: string;
  username?: string;
  password?: string;
  database?: string;
}

export declare function clientFor(options: DatabaseOptions): import("@clickhouse/client-web").ClickHouseClient;

export declare function boundDeployment(options: DatabaseOptions): Promise<string | null>;

export declare function belongsElsewhere(
  options: DatabaseOptions & { deployment: string; fresh: boolean },
): Promise<string | null>;

export declare class DeploymentMismatch extends MigrationError {}
