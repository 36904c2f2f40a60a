import type { ClickHouseClient } from "@clickhouse/client-web";
import { microsIso } from "../../src/analytics/clickhouse/rows";
import type { SeedData } from "../seed-data";

// Times as tests write them (ISO 8601, `Z`): ClickHouse's default input format wants `YYYY-MM-DD hh:mm:ss`.
const INSERT_SETTINGS = { date_time_input_format: "best_effort" } as const;

/**
 * Writes persons, distinct ids and events into the ClickHouse tables as ingestion will (the test
 * counterpart of test/endpoints/fixtures.ts's seed for D1): each person and distinct id at version
 * 0, each event with the person its distinct id had at ingestion (NULL when none). Returns the
 * persons' uuids in order.
 */
export async function seedClickHouse(client: ClickHouseClient, teamId: number, data: SeedData): Promise<string[]> {
  const now = new Date().toISOString();
  const base = Date.now() * 1000;
  const personOf = new Map<string, string>();
  const persons = (data.persons ?? []).map((p) => {
    const id = p.uuid ?? crypto.randomUUID();
    for (const distinctId of p.distinctIds) personOf.set(distinctId, id);
    return {
      id,
      d1_id: p.id ?? 0,
      team_id: teamId,
      created_at: p.createdAt ?? now,
      properties: JSON.stringify(p.properties ?? {}),
      is_identified: p.isIdentified ? 1 : 0,
      version: 0,
    };
  });
  const distinctIds = [...personOf].map(([distinct_id, person_id]) => ({
    team_id: teamId,
    distinct_id,
    person_id,
    version: 0,
  }));
  const events = (data.events ?? []).map((e, index) => ({
    uuid: e.uuid ?? crypto.randomUUID(),
    team_id: teamId,
    event: e.event,
    distinct_id: e.distinctId,
    properties: JSON.stringify(e.properties ?? {}),
    timestamp: e.timestamp,
    // 1 µs apart in list order, as ingestion stores a request's events (ClickHouse orders
    // simultaneous events by created_at, as D1 by insertion).
    created_at: microsIso(base + index),
    person_id: personOf.get(e.distinctId) ?? null,
  }));
  await insert(client, "person", persons);
  await insert(client, "person_distinct_id2", distinctIds);
  await insert(client, "events", events);
  return persons.map((p) => p.id);
}

/**
 * Merges person `from` into `into` as a merge writes it to ClickHouse: the distinct ids move (a new
 * version in person_distinct_id2), their events are overridden (person_distinct_id_overrides), and
 * the merged-away person is deleted (a deleted version); no event row changes.
 */
export async function mergeInClickHouse(
  client: ClickHouseClient,
  teamId: number,
  merge: { from: string; into: string; distinctIds: string[]; version: number },
) {
  const moved = merge.distinctIds.map((distinct_id) => ({
    team_id: teamId,
    distinct_id,
    person_id: merge.into,
    version: merge.version,
  }));
  await insert(client, "person_distinct_id2", moved);
  await insert(client, "person_distinct_id_overrides", moved);
  await insert(client, "person", [
    {
      id: merge.from,
      team_id: teamId,
      created_at: new Date().toISOString(),
      properties: "{}",
      is_identified: 0,
      is_deleted: 1,
      version: merge.version,
    },
  ]);
}

export async function insert(client: ClickHouseClient, table: string, values: object[]) {
  if (values.length === 0) return;
  await client.insert({ table, values, format: "JSONEachRow", clickhouse_settings: INSERT_SETTINGS });
}
