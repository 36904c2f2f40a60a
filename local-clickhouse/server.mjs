#!/usr/bin/env node
// Local ClickHouse for development and tests: real ClickHouse (the `chdb` package, ClickHouse as a library) behind
// the part of ClickHouse's HTTP interface that @clickhouse/client-web uses, so the worker talks to it exactly as to
// a server. Not for production: one query at a time, no users or sessions, listening on 127.0.0.1 only.
//
//   npm run clickhouse:install   # once: installs chdb (~550 MB) into local-clickhouse/node_modules
//   npm run clickhouse           # serves http://127.0.0.1:8123, data in .clickhouse/ at the repository root
//
// Options: --port N (or CLICKHOUSE_PORT / PORT; 0 picks a free port), --data DIR. With CLICKHOUSE_USER and/or
// CLICKHOUSE_PASSWORD set, requests must carry those credentials (default user `default`, empty password);
// without, any credentials are accepted.
import { createServer } from "node:http";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ChdbMissingError, Engine } from "./lib/engine.mjs";
import { createHandler } from "./lib/http-interface.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const HOST = "127.0.0.1";

const log = (line) => console.error(`local-clickhouse: ${line}`);

/** A mistake in the command line: reported with the usage, without a stack trace. */
class UsageError extends Error {}

const USAGE = "usage: node local-clickhouse/server.mjs [--port N] [--data DIR]";

function options() {
  let values;
  try {
    ({ values } = parseArgs({ options: { port: { type: "string" }, data: { type: "string" } }, strict: true }));
  } catch (error) {
    throw new UsageError(error.message);
  }
  const given = values.port ?? process.env.CLICKHOUSE_PORT ?? process.env.PORT ?? "8123";
  const port = Number(given);
  if (!/^\d+$/.test(given) || port > 65535) throw new UsageError(`invalid port: ${given}`);
  const dataDir = resolve(values.data ?? join(HERE, "..", ".clickhouse"));
  const { CLICKHOUSE_USER: user, CLICKHOUSE_PASSWORD: password } = process.env;
  const credentials = user || password ? { user: user || "default", password: password ?? "" } : undefined;
  return { port, dataDir, credentials };
}

async function main() {
  const { port, dataDir, credentials } = options();
  let engine;
  try {
    engine = await Engine.open(dataDir);
  } catch (error) {
    if (error instanceof ChdbMissingError) {
      log("chdb is not installed. Run `npm run clickhouse:install` first (it installs about 550 MB).");
      process.exit(1);
    }
    throw error;
  }

  // Query parameters travel in the URL: accept as long a request line as ClickHouse does (http_max_uri_size,
  // 1 MiB), not Node's 16 KiB header limit, so a query this server refuses is one ClickHouse refuses.
  const server = createServer({ maxHeaderSize: 1024 * 1024 }, createHandler(engine, { credentials, log }));
  server.on("error", (error) => {
    log(`cannot listen on ${HOST}:${port}: ${error.message}`);
    process.exit(1);
  });
  server.listen(port, HOST, () => {
    const url = `http://${HOST}:${server.address().port}`;
    // One line, parsed by test/clickhouse/global-setup.ts: keep "listening on <url>" in it.
    console.log(
      `local-clickhouse: ClickHouse ${engine.version} (chdb ${engine.chdbVersion}) listening on ${url}, data in ${dataDir}`,
    );
  });

  let stopping = false;
  const stop = async (signal) => {
    if (stopping) process.exit(1); // a second signal: do not wait any more
    stopping = true;
    log(`${signal}: stopping`);
    server.close();
    server.closeIdleConnections();
    await engine.close(); // the queries already queued finish, so what they wrote is on disk
    server.closeAllConnections();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}

main().catch((error) => {
  if (error instanceof UsageError) log(`${error.message}\n${USAGE}`);
  else log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
