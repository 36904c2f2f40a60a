// Reading a query request as ClickHouse's HTTP interface defines it: the query from the `query` URL parameter
// and/or the body, `param_<name>` values for `{name:Type}` placeholders, a few parameters of the interface itself,
// and every other parameter a ClickHouse setting.
import { promisify } from "node:util";
import zlib from "node:zlib";
import { ServerError } from "./errors.mjs";

// Parameters the HTTP interface consumes itself (HTTPHandler's reserved names, plus the ones it reads first);
// they are not settings.
const RESERVED = new Set([
  "query",
  "database",
  "default_format",
  "query_id",
  "session_id",
  "session_timeout",
  "session_check",
  "close_session",
  "compress",
  "decompress",
  "user",
  "password",
  "quota_key",
  "stacktrace",
  "buffer_size",
  "wait_end_of_query",
  "client_protocol_version",
  "role",
]);

const DECOMPRESS = {
  gzip: promisify(zlib.gunzip),
  "x-gzip": promisify(zlib.gunzip),
  deflate: promisify(zlib.inflate),
  br: promisify(zlib.brotliDecompress),
};

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const body = Buffer.concat(chunks);
  const encoding = (req.headers["content-encoding"] ?? "").trim().toLowerCase();
  if (!encoding || encoding === "identity" || body.length === 0) return body;
  const decompress = DECOMPRESS[encoding];
  if (!decompress) {
    throw new ServerError("UNKNOWN_COMPRESSION_METHOD", `Unknown compression method '${encoding}'`);
  }
  try {
    return await decompress(body);
  } catch (error) {
    throw new ServerError("CANNOT_DECOMPRESS", `Cannot decompress the request body (${encoding}): ${error.message}`);
  }
}

/** The fields of a multipart/form-data body (how the client sends large `param_*` values and the query). */
async function readMultipart(body, contentType) {
  const form = await new Response(body, { headers: { "content-type": contentType } }).formData();
  const fields = [];
  for (const [name, value] of form.entries()) {
    if (typeof value !== "string") {
      throw new ServerError("NOT_IMPLEMENTED", "External data (file parts) is not supported by local-clickhouse");
    }
    fields.push([name, value]);
  }
  return fields;
}

/** The user and password of a request, from whichever of ClickHouse's ways it used. */
function credentials(req, url) {
  const header = req.headers["x-clickhouse-user"];
  if (header !== undefined || req.headers["x-clickhouse-key"] !== undefined) {
    return { user: header || "default", password: req.headers["x-clickhouse-key"] ?? "" };
  }
  const authorization = req.headers.authorization ?? "";
  if (/^Basic /i.test(authorization)) {
    const decoded = Buffer.from(authorization.slice(6).trim(), "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    return colon < 0
      ? { user: decoded, password: "" }
      : { user: decoded.slice(0, colon) || "default", password: decoded.slice(colon + 1) };
  }
  if (authorization) return { user: undefined, password: undefined, token: authorization };
  return { user: url.searchParams.get("user") || "default", password: url.searchParams.get("password") ?? "" };
}

/**
 * Checks the credentials when the server has some configured; without, any request is let in (as the `default`
 * user with an empty password, ClickHouse's own default).
 */
function authenticate(req, url, expected) {
  if (!expected) return;
  const given = credentials(req, url);
  if (given.user !== expected.user || given.password !== expected.password) {
    const who = given.user ?? "default";
    throw new ServerError(
      "AUTHENTICATION_FAILED",
      `${who}: Authentication failed: password is incorrect, or there is no user with such name`,
    );
  }
}

/**
 * @typedef {object} QueryRequest
 * @property {import("./engine.mjs").EngineRequest} engine
 * @property {Map<string, string>} settings the same settings, by name
 */

/**
 * Reads a query request; throws a ServerError for what ClickHouse would refuse before running anything.
 * @param {import("node:http").IncomingMessage} req
 * @param {URL} url
 * @param {{ user: string, password: string } | undefined} expectedCredentials
 * @returns {Promise<QueryRequest>}
 */
export async function readQueryRequest(req, url, expectedCredentials) {
  authenticate(req, url, expectedCredentials);
  const fields = [...url.searchParams];
  let body = await readBody(req);
  const contentType = req.headers["content-type"] ?? "";
  if (/^multipart\/form-data/i.test(contentType)) {
    // The query and the parameters travel as form fields; nothing else of the body is query text.
    fields.push(...(await readMultipart(body, contentType)));
    body = Buffer.alloc(0);
  }
  for (const name of ["compress", "decompress"]) {
    if (/^(1|true)$/i.test(fields.find(([key]) => key === name)?.[1] ?? "")) {
      throw new ServerError("NOT_IMPLEMENTED", `'${name}=1' (ClickHouse's native compression) is not supported`);
    }
  }

  const params = {};
  const settings = new Map();
  let query;
  let database = req.headers["x-clickhouse-database"] || undefined;
  let defaultFormat = req.headers["x-clickhouse-format"] || undefined;
  for (const [key, value] of fields) {
    if (key === "query") query ??= value;
    else if (key === "database") database ??= value || undefined;
    else if (key === "default_format") defaultFormat ??= value || undefined;
    else if (key.startsWith("param_")) params[key.slice("param_".length)] = value;
    else if (key && !RESERVED.has(key)) settings.set(key, value);
  }
  // The query is the `query` parameter followed by the body, or the body alone.
  const sql = query ?? body.toString("utf8");
  const data = query !== undefined && body.length > 0 ? body : undefined;
  return {
    settings,
    engine: {
      sql,
      data,
      params,
      settings: [...settings],
      database,
      readOnlyMethod: req.method === "GET",
      defaultFormat: defaultFormat ?? "TabSeparated",
    },
  };
}
