// The engine: ClickHouse itself, from the `chdb` package (ClickHouse as a library), holding one data directory for
// this process. Each request runs on a connection of its own, one request at a time.
//
// Why a connection per request: in chdb a `SET` lasts as long as the connection (it is a clickhouse-local session),
// while a server applies the settings of a request (URL parameters) to that query alone. A fresh connection costs
// about 0.3 ms and starts from the defaults, so `readonly=1` or `max_result_rows` on one request never leaks into
// the next. Why one at a time: the engine binds query parameters per process, not per connection (chdb serialises
// its own parameterised calls for that reason), and a dev server has no need for parallel queries.
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { quoteIdentifier, quoteString, isInsert } from "./sql.mjs";

const require = createRequire(import.meta.url);

/** chdb is not installed next to this server (it is installed apart: `npm run clickhouse:install`). */
export class ChdbMissingError extends Error {}

function loadChdb() {
  let packageJson;
  try {
    packageJson = require.resolve("chdb/package.json");
  } catch {
    throw new ChdbMissingError("the chdb package is not installed");
  }
  const chdb = require("chdb");
  // The addon itself, the one chdb's own JavaScript calls, through the same module instance (so the same loaded
  // library and connections). Two calls need it: a query with parameters, whose values the HTTP interface
  // delivers already in ClickHouse's text form (chdb's public queryBindAsync would escape them a second time),
  // and an INSERT with its data as raw bytes after the statement as the client wrote it (chdb's public insert
  // rebuilds the statement from a table name). The chdb version is pinned exactly in package.json for this.
  const addon = require(join(dirname(packageJson), "dist", "loader.js")).loadNative();
  for (const name of ["QueryAsyncConnection", "InsertRawAsyncConnection"]) {
    if (typeof addon[name] !== "function") throw new Error(`chdb's addon has no ${name}: another chdb version?`);
  }
  return { chdb, addon, chdbVersion: require("chdb/package.json").version };
}

// Settings that clickhouse-local (and so chdb) changes from a server's defaults and that change what a query means;
// put back on every connection so that queries behave as they would on a server.
const SERVER_DEFAULTS = [
  ["implicit_select", "0"],
  ["allow_introspection_functions", "0"],
];

// The data after an INSERT that has none: with no data at all the engine (a clickhouse-local) answers
// NO_DATA_TO_INSERT, where a server inserts nothing (an empty HTTP body) and still checks the statement.
const NO_DATA = Buffer.from("\n");

/**
 * @typedef {object} EngineRequest
 * @property {string} sql the statement (for an INSERT with data: up to its FORMAT clause)
 * @property {Buffer} [data] what follows the statement in the request (an INSERT's rows)
 * @property {Record<string, string>} params `{name:Type}` values in ClickHouse's text form, as the client sent them
 * @property {Array<[string, string]>} settings ClickHouse settings of this request, in order
 * @property {string} [database] the current database for the query
 * @property {boolean} readOnlyMethod an HTTP GET: ClickHouse runs those with readonly=2
 * @property {string} defaultFormat output format when the query names none
 */

/**
 * @typedef {object} EngineOutcome
 * @property {Uint8Array} output the result, in the output format
 * @property {number} resultRows
 * @property {number} resultBytes
 * @property {number} writtenRows
 * @property {number} writtenBytes
 * @property {number} elapsedSeconds
 */

export class Engine {
  #chdb;
  #addon;
  #dataDir;
  #base;
  #tail = Promise.resolve();
  #closed = false;

  /** Opens (creating it if needed) the data directory; throws ChdbMissingError without chdb. */
  static async open(dataDir) {
    const loaded = loadChdb();
    const dir = resolve(dataDir);
    mkdirSync(dir, { recursive: true });
    const engine = new Engine(loaded, dir);
    const info = await engine.#base.queryAsync("SELECT version(), timezone()", { format: "TabSeparated" });
    [engine.version, engine.timezone] = info.text().trim().split("\t");
    return engine;
  }

  constructor({ chdb, addon, chdbVersion }, dataDir) {
    this.#chdb = chdb;
    this.#addon = addon;
    this.#dataDir = dataDir;
    this.chdbVersion = chdbVersion;
    this.dataDir = dataDir;
    /** @type {string} */
    this.version = "";
    /** @type {string} */
    this.timezone = "";
    // Holds the process's one data directory for as long as the server runs; the per-request connections share it.
    this.#base = new chdb.Session(dataDir);
  }

  /**
   * Runs one request's statement after the queue of earlier ones.
   * @param {EngineRequest} request
   * @returns {Promise<EngineOutcome>}
   */
  execute(request) {
    const run = this.#tail.then(() => this.#run(request));
    this.#tail = run.catch(() => {});
    return run;
  }

  async #run(request) {
    if (this.#closed) throw new Error("the server is shutting down");
    const session = new this.#chdb.Session(this.#dataDir);
    try {
      const conn = session.connection;
      const statement = (sql) => this.#addon.QueryAsyncConnection(conn, sql, "TabSeparated");
      // In a server's order: the database, then the request's settings checked against the method's readonly.
      if (request.database) await statement(`USE ${quoteIdentifier(request.database)}`);
      const defaults = [...SERVER_DEFAULTS, ...(request.readOnlyMethod ? [["readonly", "2"]] : [])];
      await statement(`SET ${defaults.map(([name, value]) => `${name} = ${value}`).join(", ")}`);
      // One SET for all of them: ClickHouse checks every change against the settings before the statement (as a
      // server checks a request's), so readonly=1 among them does not forbid the others.
      if (request.settings.length > 0) {
        const changes = request.settings.map(([name, value]) => `${quoteIdentifier(name)} = ${quoteString(value)}`);
        await statement(`SET ${changes.join(", ")}`);
      }
      const hasParams = Object.keys(request.params).length > 0;
      if (isInsert(request.sql) && !hasParams) {
        const data = request.data && request.data.length > 0 ? request.data : NO_DATA;
        const raw = await this.#addon.InsertRawAsyncConnection(conn, request.sql, data, false);
        return {
          output: new Uint8Array(0),
          resultRows: 0,
          resultBytes: 0,
          writtenRows: raw.rowsWritten,
          writtenBytes: raw.bytesWritten,
          elapsedSeconds: raw.elapsed,
        };
      }
      // Anything else reads as one text: the statement and then the body, as a server reads a request.
      const sql = request.data ? request.sql + request.data.toString("utf8") : request.sql;
      const raw = hasParams
        ? await this.#addon.QueryAsyncConnection(conn, sql, request.defaultFormat, request.params)
        : await this.#addon.QueryAsyncConnection(conn, sql, request.defaultFormat);
      return {
        output: raw.bytes,
        resultRows: raw.rowsRead,
        resultBytes: raw.bytesRead,
        writtenRows: 0,
        writtenBytes: 0,
        elapsedSeconds: raw.elapsed,
      };
    } finally {
      session.close();
    }
  }

  /** Waits for the queued queries, then releases the data directory. */
  async close() {
    this.#closed = true;
    await this.#tail;
    this.#base.close();
  }
}
