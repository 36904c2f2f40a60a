// `npm run setup:cloudflare`: deploys edgehog to the Cloudflare account wrangler is logged in to,
// in one step and with no ids to copy by hand. Safe to run again: it reuses what exists.
//   1. finds or creates the D1 database and the KV namespace, and writes their ids into wrangler.toml;
//   2. applies the D1 migrations to the remote database (the first run creates the deployment's identity);
//   3. deploys the worker (wrangler's [build] step builds the assets), and on the first deployment
//      uploads a fresh root API key as the ROOT_API_KEY secret and prints it, once.
// With `-- --clickhouse` (events in ClickHouse, docs/operations.md "Running on ClickHouse"), before
// deploying it also finds or creates the events queue and its dead-letter queue, adds their
// producer and consumer to wrangler.toml, and applies the ClickHouse migrations to the server
// CLICKHOUSE_URL (with CLICKHOUSE_USER, CLICKHOUSE_PASSWORD, CLICKHOUSE_DATABASE) names, if set here,
// binding that database to this deployment (it refuses one that belongs to another).
// WRANGLER_BIN names another wrangler entry point to run (default: the project's own).
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, WRANGLER } from "./lib/local-worker.mjs";
import { bindingValues, eventQueues, setBindingValue, withEventQueues, workerName } from "./lib/wrangler-config.mjs";

const cwd = process.cwd();
const configPath = join(cwd, "wrangler.toml");
const clickhouse = process.argv.slice(2).includes("--clickhouse");

/** Runs wrangler; `capture` returns its stdout, otherwise the user sees it (and answers its prompts). */
function wrangler(args, { capture = false, allowFailure = false } = {}) {
  const result = spawnSync(process.execPath, [WRANGLER, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    stdio: capture ? ["inherit", "pipe", "pipe"] : "inherit",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0 && !allowFailure) {
    if (capture) process.stderr.write(result.stderr ?? "");
    console.error(`\nsetup:cloudflare: \`wrangler ${args.join(" ")}\` failed (exit ${result.status}).`);
    process.exit(1);
  }
  return { ok: result.status === 0, stdout: result.stdout ?? "" };
}

/** The JSON a wrangler command printed (it may print notices before it). */
function jsonOutput(stdout) {
  const start = stdout.search(/^[[{]/m);
  if (start < 0) throw new Error(`expected JSON from wrangler, got:\n${stdout}`);
  return JSON.parse(stdout.slice(start));
}

const step = (text) => console.log(`\n▸ ${text}`);

step("Checking the Cloudflare login");
if (!process.env.CLOUDFLARE_API_TOKEN && !wrangler(["whoami"], { capture: true, allowFailure: true }).ok) {
  console.error(
    "Not logged in to Cloudflare: run `npx wrangler login` (or set CLOUDFLARE_API_TOKEN), then run this again.",
  );
  process.exit(1);
}

let toml = readFileSync(configPath, "utf8");
const name = workerName(toml);

step("D1 database");
const d1 = bindingValues(toml, "d1_databases", ["binding", "DB"]);
if (!d1?.database_name)
  throw new Error('wrangler.toml needs a [[d1_databases]] with binding = "DB" and a database_name');
if (d1.database_id) {
  console.log(`  ${d1.database_name}: ${d1.database_id} (from wrangler.toml)`);
} else {
  const findDatabase = () =>
    jsonOutput(wrangler(["d1", "list", "--json"], { capture: true }).stdout).find((db) => db.name === d1.database_name);
  let database = findDatabase();
  if (database) console.log(`  ${d1.database_name}: ${database.uuid} (exists)`);
  else {
    wrangler(["d1", "create", d1.database_name, "--no-update-config"], { capture: true });
    database = findDatabase();
    if (!database)
      throw new Error(`created D1 database ${d1.database_name} but cannot find it in \`wrangler d1 list\``);
    console.log(`  ${d1.database_name}: ${database.uuid} (created)`);
  }
  toml = setBindingValue(toml, "d1_databases", ["binding", "DB"], "database_id", database.uuid);
  writeFileSync(configPath, toml);
}

step("KV namespace for flag definitions");
const kv = bindingValues(toml, "kv_namespaces", ["binding", "FLAGS_KV"]);
if (!kv) throw new Error('wrangler.toml needs a [[kv_namespaces]] with binding = "FLAGS_KV"');
if (kv.id) {
  console.log(`  FLAGS_KV: ${kv.id} (from wrangler.toml)`);
} else {
  const title = `${name}-flags`;
  const findNamespace = () =>
    jsonOutput(wrangler(["kv", "namespace", "list"], { capture: true }).stdout).find((ns) => ns.title === title);
  let namespace = findNamespace();
  if (namespace) console.log(`  ${title}: ${namespace.id} (exists)`);
  else {
    wrangler(["kv", "namespace", "create", title, "--no-update-config"], { capture: true });
    namespace = findNamespace();
    if (!namespace)
      throw new Error(`created KV namespace ${title} but cannot find it in \`wrangler kv namespace list\``);
    console.log(`  ${title}: ${namespace.id} (created)`);
  }
  toml = setBindingValue(toml, "kv_namespaces", ["binding", "FLAGS_KV"], "id", namespace.id);
  writeFileSync(configPath, toml);
}

step("Applying D1 migrations to the remote database");
wrangler(["d1", "migrations", "apply", "DB", "--remote"]);

if (clickhouse) {
  step("Queues for ClickHouse ingestion");
  const { events, deadLetter } = eventQueues(name);
  for (const queue of [deadLetter, events]) {
    if (wrangler(["queues", "info", queue], { capture: true, allowFailure: true }).ok)
      console.log(`  ${queue} (exists)`);
    else {
      wrangler(["queues", "create", queue], { capture: true });
      console.log(`  ${queue} (created)`);
    }
  }
  const withQueues = withEventQueues(toml);
  if (withQueues === toml) console.log("  wrangler.toml has the producer and consumer");
  else {
    toml = withQueues;
    writeFileSync(configPath, toml);
    console.log("  added the EVENTS_QUEUE producer and the consumer to wrangler.toml");
  }

  step("ClickHouse migrations");
  if (process.env.CLICKHOUSE_URL) {
    // After D1's migrations: the ClickHouse database is bound to the identity they created.
    const migrated = spawnSync(process.execPath, [join(ROOT, "scripts", "clickhouse-migrate.mjs")], {
      cwd,
      stdio: "inherit",
    });
    if (migrated.status !== 0) {
      console.error(
        "\nsetup:cloudflare: the ClickHouse migrations failed; fix the server or settings and run this again.",
      );
      process.exit(1);
    }
  } else {
    console.log(
      "  CLICKHOUSE_URL is not set here, so none were applied. Run this again with the server's settings in the\n" +
        "  environment, or: CLICKHOUSE_URL=https://... CLICKHOUSE_USER=... CLICKHOUSE_PASSWORD=... \\\n" +
        "    CLICKHOUSE_DATABASE=... npm run clickhouse:migrate",
    );
  }
}

step("Deploying the worker");
const secrets = wrangler(["secret", "list", "--format", "json"], { capture: true, allowFailure: true });
const hasRootKey = secrets.ok && jsonOutput(secrets.stdout).some((s) => s.name === "ROOT_API_KEY");
if (hasRootKey) {
  wrangler(["deploy"]);
  console.log(
    "\nDeployed. The root API key is the ROOT_API_KEY secret set before (rotate: npx wrangler secret put ROOT_API_KEY).",
  );
} else {
  // First deployment: the key goes up with the code, so the worker never runs without one.
  const rootKey = `phx_root_${randomBytes(32).toString("hex")}`;
  const dir = mkdtempSync(join(tmpdir(), "edgehog-secrets-"));
  const secretsFile = join(dir, "secrets.json");
  writeFileSync(secretsFile, JSON.stringify({ ROOT_API_KEY: rootKey }), { mode: 0o600 });
  try {
    wrangler(["deploy", "--secrets-file", secretsFile]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`
Deployed. Your root API key (shown once; it is stored only as the ROOT_API_KEY secret):

  ${rootKey}

Create a project:  curl -X POST https://<your worker>/api/projects/ -H "Authorization: Bearer ${rootKey}" \\
                     -H "Content-Type: application/json" -d '{"name": "My product"}'`);
}
if (clickhouse) {
  console.log(
    "\nClickHouse: the worker stores events there once its settings are set (until then, in D1):\n" +
      "  CLICKHOUSE_URL, CLICKHOUSE_USER, CLICKHOUSE_DATABASE as variables (dashboard: Workers → " +
      `${name} → Settings → Variables),\n  and npx wrangler secret put CLICKHOUSE_PASSWORD. See docs/operations.md.`,
  );
}
console.log(
  "\nRead replicas: enable them on the database (dashboard: D1 → " +
    `${d1.database_name} → Settings → Read replication), see docs/operations.md.`,
);
