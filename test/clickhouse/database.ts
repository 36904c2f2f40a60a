import { createClient, type ClickHouseClient } from "@clickhouse/client-web";
import { migrate } from "../../scripts/lib/clickhouse-migrations.mjs";

/** A database name of this run's own: the suite can run against a shared server. */
export const databaseName = (prefix: string) =>
  `edgehog_${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;

export interface TestDatabase {
  database: string;
  client: ClickHouseClient;
  drop(): Promise<void>;
}

/** A fresh database with every migration of clickhouse/migrations applied, and a client on it. */
export async function migratedDatabase(url: string, prefix: string): Promise<TestDatabase> {
  const database = databaseName(prefix);
  await migrate({ url, database });
  const client = createClient({ url, database });
  return {
    database,
    client,
    drop: async () => {
      await client.command({ query: `DROP DATABASE IF EXISTS ${database}` });
      await client.close();
    },
  };
}
