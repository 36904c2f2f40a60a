// Persons list latency: seeds persons through POST /batch/ (1000 new users per request, each with
// an email, a plan and a number), then loads list pages (first page, deep offset, property filters
// common and rare, search, distinct_id) beside the bare /_health route in the same run, and reports
// the local D1 database size the persons take.
// Usage: node bench/persons-list.mjs [persons=100000]
import { load, machine, ROOT_KEY, startBenchWorker } from "./lib.mjs";

const PERSONS = Number(process.argv[2] ?? 100_000);
const PER_BATCH = 1000;
const PLANS = ["free", "pro", "enterprise"];

const worker = await startBenchWorker();
try {
  const started = Date.now();
  const batches = Array.from({ length: Math.ceil(PERSONS / PER_BATCH) }, (_, b) => b);
  const seedOne = async (b) => {
    const batch = Array.from({ length: Math.min(PER_BATCH, PERSONS - b * PER_BATCH) }, (_, i) => {
      const n = b * PER_BATCH + i;
      return {
        event: "signed up",
        distinct_id: `user-${n}`,
        properties: { $set: { email: `user${n}@example.com`, plan: PLANS[n % 3], n } },
      };
    });
    const res = await fetch(`${worker.url}/batch/`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ api_key: worker.project.api_token, batch }),
    });
    if (res.status !== 200) throw new Error(`seed batch ${b}: ${res.status} ${await res.text()}`);
  };
  for (let i = 0; i < batches.length; i += 4) await Promise.all(batches.slice(i, i + 4).map(seedOne));
  const seedSeconds = (Date.now() - started) / 1000;
  const [{ n: persons }] = worker.sql("SELECT count(*) AS n FROM persons");
  const databaseBytes = worker.databaseBytes();

  const base = `${worker.url}/api/environments/${worker.project.id}/persons/`;
  const headers = { authorization: `Bearer ${ROOT_KEY}` };
  const filter = encodeURIComponent(JSON.stringify([{ key: "plan", value: "pro", type: "person" }]));
  const rare = encodeURIComponent(JSON.stringify([{ key: "n", value: 4242, type: "person" }]));
  const runs = [
    { title: "GET /_health (bare route)", url: `${worker.url}/_health` },
    { title: "persons list, first page (limit 100)", url: base, headers },
    { title: "persons list, offset 50000", url: `${base}?offset=50000`, headers },
    { title: "persons list, properties plan = pro", url: `${base}?properties=${filter}`, headers },
    {
      title: "persons list, properties plan = pro, offset 50000",
      url: `${base}?properties=${filter}&offset=50000`,
      headers,
    },
    { title: "persons list, properties n = 4242", url: `${base}?properties=${rare}`, headers },
    { title: "persons list, search user4242", url: `${base}?search=user4242`, headers },
    { title: "persons list, search example.com (every person)", url: `${base}?search=example.com`, headers },
    { title: "persons list, distinct_id", url: `${base}?distinct_id=user-77777`, headers },
  ];
  const results = [];
  // One connection gives the latency of a single request; four show it under concurrent load.
  for (const run of runs)
    results.push(await load({ ...run, title: `${run.title}, 1 connection`, connections: 1, duration: 5 }));
  for (const run of runs) results.push(await load({ ...run, title: `${run.title}, 4 connections`, connections: 4 }));
  console.log(JSON.stringify({ machine: machine(), persons, seedSeconds, databaseBytes, results }, null, 2));
} finally {
  await worker.stop();
}
