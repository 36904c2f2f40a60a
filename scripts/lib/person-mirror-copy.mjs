// Copies a deployment's D1 persons and distinct ids into ClickHouse's persons mirror (`person`,
// `person_distinct_id2`), for persons written before the deployment stored events in ClickHouse: from then
// on capture and the persons API keep the mirror in step through the events queue, but nothing sends what
// D1 held already. `npm run clickhouse:migrate` runs it when it binds a database to a deployment (before
// the binding, so the worker never reads a mirror that is still being filled) and with --copy-persons.

/** Persons per D1 read: a few megabytes of JSON through `wrangler d1 execute`. */
export const COPY_CHUNK = 2_000;

const INSERT_SETTINGS = { date_time_input_format: "best_effort" };

/**
 * A person's version in the mirror, as src/analytics/clickhouse/rows.ts mirroredPersonVersion writes it
 * (the worker's rows and these must compare): D1's row id above D1's version, as decimal text.
 */
const mirroredPersonVersion = (id, version) => ((BigInt(id) << 32n) + BigInt(version)).toString();

/**
 * Copies every D1 person (in id order, COPY_CHUNK at a time) with their distinct ids. A person goes in
 * at D1's own version, so a newer version the queue delivers (written during the copy) still wins, and an
 * older one is replaced; a distinct id goes in at version 0, below any the worker writes, so it only fills
 * an id the mirror lacks. Safe to run again.
 * @param {{ client: import("@clickhouse/client-web").ClickHouseClient, read: (sql: string) => any[] | Promise<any[]>,
 *   log?: (line: string) => void, chunk?: number }} options `read` runs a statement on D1 and returns (or resolves to) its rows
 * @returns {Promise<number>} how many persons were copied
 */
export async function copyPersonsToMirror({ client, read, log = () => {}, chunk = COPY_CHUNK }) {
  const [{ total }] = await read("SELECT count(*) AS total FROM persons");
  let after = 0;
  let copied = 0;
  for (;;) {
    const persons = await read(
      `SELECT p.id, p.project_id, p.uuid, p.created_at, p.properties, p.is_identified, p.version,
        (SELECT json_group_array(d.distinct_id) FROM person_distinct_ids d WHERE d.person_id = p.id) AS distinct_ids
      FROM persons p WHERE p.id > ${after} ORDER BY p.id LIMIT ${chunk}`,
    );
    if (!persons.length) break;
    await insert(
      client,
      "person",
      persons.map((p) => ({
        id: p.uuid,
        d1_id: p.id,
        team_id: p.project_id,
        created_at: p.created_at,
        properties: p.properties,
        is_identified: p.is_identified ? 1 : 0,
        is_deleted: 0,
        version: mirroredPersonVersion(p.id, p.version),
      })),
    );
    await insert(
      client,
      "person_distinct_id2",
      persons.flatMap((p) =>
        JSON.parse(p.distinct_ids).map((distinctId) => ({
          team_id: p.project_id,
          distinct_id: distinctId,
          person_id: p.uuid,
          is_deleted: 0,
          version: 0,
        })),
      ),
    );
    copied += persons.length;
    after = persons.at(-1).id;
    log(`copied ${copied} of ${total} persons to the persons mirror`);
  }
  return copied;
}

async function insert(client, table, values) {
  if (values.length)
    await client.insert({ table, values, format: "JSONEachRow", clickhouse_settings: INSERT_SETTINGS });
}
