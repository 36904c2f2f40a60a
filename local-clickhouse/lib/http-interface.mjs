// ClickHouse's HTTP interface in front of the engine: the endpoints, the response headers a client reads
// (X-ClickHouse-Query-Id, -Format, -Timezone, -Summary, -Exception-Code) and the compressed responses.
import { randomUUID } from "node:crypto";
import { promisify } from "node:util";
import zlib from "node:zlib";
import { describeError, ServerError } from "./errors.mjs";
import { contentType, trailingFormat } from "./formats.mjs";
import { readQueryRequest } from "./request.mjs";
import { isEmptyQuery, isInsert } from "./sql.mjs";

const COMPRESS = [
  ["gzip", promisify(zlib.gzip)],
  ["deflate", promisify(zlib.deflate)],
  ["br", promisify(zlib.brotliCompress)],
];

// Paths a server answers without a query (health checks).
const OK_PATHS = new Set(["/ping", "/replicas_status"]);

const truthy = (value) => /^(1|true)$/i.test(value ?? "");

/** The response encoding: with enable_http_compression=1, the first of ours the client accepts. */
function responseEncoding(req, settings) {
  if (!truthy(settings.get("enable_http_compression"))) return undefined;
  const accepted = String(req.headers["accept-encoding"] ?? "")
    .split(",")
    .map((part) => part.trim().split(";")[0].toLowerCase());
  return COMPRESS.find(([name]) => accepted.includes(name));
}

/** X-ClickHouse-Summary: ClickHouse's progress counters, every value a string. */
function summary(outcome) {
  const insert = outcome.writtenRows > 0 || outcome.writtenBytes > 0;
  return JSON.stringify({
    read_rows: String(insert ? outcome.writtenRows : outcome.resultRows),
    read_bytes: String(insert ? outcome.writtenBytes : outcome.resultBytes),
    written_rows: String(outcome.writtenRows),
    written_bytes: String(outcome.writtenBytes),
    total_rows_to_read: "0",
    result_rows: String(insert ? outcome.writtenRows : outcome.resultRows),
    result_bytes: String(insert ? outcome.writtenBytes : outcome.resultBytes),
    elapsed_ns: String(Math.round(outcome.elapsedSeconds * 1e9)),
  });
}

/**
 * The request handler.
 * @param {import("./engine.mjs").Engine} engine
 * @param {{ credentials?: { user: string, password: string }, log: (line: string) => void }} options
 */
export function createHandler(engine, { credentials, log }) {
  const baseHeaders = {
    "X-ClickHouse-Server-Display-Name": "local-clickhouse",
    "X-ClickHouse-Timezone": engine.timezone,
  };

  function fail(res, error, queryId, sql) {
    const described = describeError(error, engine.version);
    const firstLine = described.body.split("\n")[0].slice(0, 300);
    const statement = sql ? ` in ${JSON.stringify(sql.length > 200 ? `${sql.slice(0, 200)}...` : sql)}` : "";
    log(`query ${queryId} failed (HTTP ${described.status})${statement}: ${firstLine}`);
    res.writeHead(described.status, {
      ...baseHeaders,
      "X-ClickHouse-Query-Id": queryId,
      "X-ClickHouse-Exception-Code": String(described.code),
      "Content-Type": "text/plain; charset=UTF-8",
      "Content-Length": Buffer.byteLength(described.body),
    });
    res.end(described.body);
  }

  return async function handle(req, res) {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (OK_PATHS.has(url.pathname) || (url.pathname === "/" && req.method === "GET" && !url.searchParams.size)) {
      res.writeHead(200, { "Content-Type": "text/html; charset=UTF-8", "Content-Length": 4 });
      res.end("Ok.\n");
      return;
    }
    const queryId = url.searchParams.get("query_id") || req.headers["x-clickhouse-query-id"] || randomUUID();
    let sql;
    try {
      if (req.method !== "GET" && req.method !== "POST" && req.method !== "HEAD") {
        throw new ServerError("UNSUPPORTED_METHOD", `HTTP method ${req.method} is not supported for queries`);
      }
      const request = await readQueryRequest(req, url, credentials);
      sql = request.engine.sql;
      if (isEmptyQuery(sql) && !request.engine.data) throw new ServerError("SYNTAX_ERROR", "Empty query");
      const outcome = await engine.execute(request.engine);
      const { data, defaultFormat } = request.engine;
      // An INSERT's FORMAT names its input; the output (none) is in the default format.
      const text = isInsert(sql) ? "" : data ? sql + data.toString("utf8") : sql;
      const format = trailingFormat(text) ?? defaultFormat;
      let output = Buffer.from(outcome.output.buffer, outcome.output.byteOffset, outcome.output.byteLength);
      const headers = {
        ...baseHeaders,
        "X-ClickHouse-Query-Id": queryId,
        "X-ClickHouse-Format": format,
        "X-ClickHouse-Summary": summary(outcome),
        "Content-Type": contentType(format, request.settings),
      };
      const encoding = responseEncoding(req, request.settings);
      if (encoding) {
        output = await encoding[1](output);
        headers["Content-Encoding"] = encoding[0];
      }
      headers["Content-Length"] = output.length;
      res.writeHead(200, headers);
      res.end(output);
    } catch (error) {
      if (res.headersSent) {
        res.destroy(error instanceof Error ? error : undefined);
        return;
      }
      fail(res, error, queryId, sql);
    }
  };
}
