// ClickHouse's errors as its HTTP interface reports them: the body `Code: N. DB::Exception: <message>. (NAME)
// (version V)`, the header X-ClickHouse-Exception-Code and an HTTP status chosen from the error's name. Clients
// (@clickhouse/client-web's parseError among them) read the code, message and name out of that body.

/** An error raised by this server itself, in ClickHouse's terms (the engine's own errors arrive as messages). */
export class ServerError extends Error {
  /**
   * @param {string} name ClickHouse's error name, e.g. "AUTHENTICATION_FAILED"
   * @param {string} message without the trailing period
   */
  constructor(name, message) {
    super(message);
    this.clickhouseName = name;
    this.clickhouseCode = CODES[name];
  }
}

// The codes of the errors this server raises itself (as system.errors numbers them in ClickHouse 26.7).
const CODES = {
  UNSUPPORTED_METHOD: 1,
  BAD_ARGUMENTS: 36,
  NOT_IMPLEMENTED: 48,
  SYNTAX_ERROR: 62,
  UNKNOWN_COMPRESSION_METHOD: 89,
  CANNOT_DECOMPRESS: 271,
  AUTHENTICATION_FAILED: 516,
  STD_EXCEPTION: 1001,
};

// ClickHouse's exceptionCodeToHTTPStatus (src/Server/HTTP/exceptionCodeToHTTPStatus.cpp), keyed by name so
// that the table reads like the original; anything else is a 500.
const STATUS_BY_NAME = new Map([
  ["REQUIRED_PASSWORD", 401],
  ...["UNKNOWN_USER", "WRONG_PASSWORD", "AUTHENTICATION_FAILED", "SET_NON_GRANTED_ROLE", "ACCESS_DENIED"].map(
    (name) => [name, 403],
  ),
  ...[
    "BAD_ARGUMENTS",
    "CANNOT_COMPILE_REGEXP",
    "CANNOT_PARSE_TEXT",
    "CANNOT_PARSE_ESCAPE_SEQUENCE",
    "CANNOT_PARSE_QUOTED_STRING",
    "CANNOT_PARSE_DATE",
    "CANNOT_PARSE_DATETIME",
    "CANNOT_PARSE_NUMBER",
    "CANNOT_PARSE_DOMAIN_VALUE_FROM_STRING",
    "CANNOT_PARSE_IPV4",
    "CANNOT_PARSE_IPV6",
    "CANNOT_PARSE_INPUT_ASSERTION_FAILED",
    "CANNOT_PARSE_UUID",
    "DUPLICATE_COLUMN",
    "ILLEGAL_COLUMN",
    "UNKNOWN_ELEMENT_IN_AST",
    "UNKNOWN_TYPE_OF_AST_NODE",
    "THERE_IS_NO_COLUMN",
    "TOO_DEEP_AST",
    "TOO_BIG_AST",
    "UNEXPECTED_AST_STRUCTURE",
    "SYNTAX_ERROR",
    "INCORRECT_DATA",
    "TYPE_MISMATCH",
    "VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE",
  ].map((name) => [name, 400]),
  ...[
    "UNKNOWN_TABLE",
    "UNKNOWN_FUNCTION",
    "UNKNOWN_IDENTIFIER",
    "UNKNOWN_TYPE",
    "UNKNOWN_STORAGE",
    "UNKNOWN_DATABASE",
    "UNKNOWN_SETTING",
    "UNKNOWN_DIRECTION_OF_SORTING",
    "UNKNOWN_AGGREGATE_FUNCTION",
    "UNKNOWN_FORMAT",
    "UNKNOWN_DATABASE_ENGINE",
    "UNKNOWN_TYPE_OF_QUERY",
    "UNKNOWN_ROLE",
  ].map((name) => [name, 404]),
  ["QUERY_IS_TOO_LARGE", 413],
  ["NOT_IMPLEMENTED", 501],
  ["SOCKET_TIMEOUT", 503],
  ["CANNOT_OPEN_FILE", 503],
  ["CANNOT_SCHEDULE_TASK", 503],
  ["HTTP_LENGTH_REQUIRED", 411],
  ["TIMEOUT_EXCEEDED", 408],
  ["UNSUPPORTED_MEDIA_TYPE", 415],
]);

const NESTED = /^Code: (\d+)\. DB::Exception: (Code: \1\. DB::Exception: [\s\S]*)$/;

/**
 * The innermost `Code: N. DB::Exception: ... (NAME)` of a chdb error message. chdb re-wraps some errors once per
 * layer ("Code: 73. DB::Exception: Code: 73. DB::Exception: Unknown format ... (UNKNOWN_FORMAT) (version ...).
 * (UNKNOWN_FORMAT)"), where a server reports the exception once.
 */
function innermost(message) {
  let text = message.trim();
  for (let match = NESTED.exec(text); match; match = NESTED.exec(text)) {
    text = match[2].replace(/\.? \([A-Z0-9_]+\)$/, "").replace(/ \(version [^)]*\)$/, "");
  }
  return text;
}

/**
 * What the response to a failed query carries: `{ status, code, name, body }`.
 * @param {unknown} error a chdb error (message `Code: N. DB::Exception: ...`), a ServerError or anything thrown
 * @param {string} version ClickHouse's version, for the body's `(version V)` suffix
 */
export function describeError(error, version) {
  let code;
  let name;
  let text;
  if (error instanceof ServerError) {
    code = error.clickhouseCode;
    name = error.clickhouseName;
    text = `Code: ${code}. DB::Exception: ${error.message}. (${name})`;
  } else {
    text = innermost(error instanceof Error ? error.message : String(error));
    const parsed = /^Code: (\d+)\. DB::Exception: [\s\S]*\(([A-Z0-9_]+)\)$/.exec(text);
    if (parsed) {
      code = Number(parsed[1]);
      name = parsed[2];
    } else {
      // Not an engine exception (a failure in this server or the binding): ClickHouse reports a C++ exception
      // outside its own hierarchy as STD_EXCEPTION.
      code = CODES.STD_EXCEPTION;
      name = "STD_EXCEPTION";
      text = `Code: ${code}. DB::Exception: ${text.replace(/\.$/, "")}. (${name})`;
    }
  }
  return { status: STATUS_BY_NAME.get(name) ?? 500, code, name, body: `${text} (version ${version})\n` };
}
