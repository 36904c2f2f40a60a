// Output formats: which one a query answers in (for the X-ClickHouse-Format header) and the Content-Type that
// ClickHouse's formats declare for it.

/** The format a query names in a trailing `FORMAT <name>` clause (how @clickhouse/client-web ends its queries). */
export function trailingFormat(sql) {
  return /\bFORMAT\s+([A-Za-z][A-Za-z0-9_]*)\s*;?\s*$/i.exec(sql)?.[1];
}

const BINARY =
  /^(Native|RowBinary.*|Parquet|Arrow|ArrowStream|ORC|Avro|AvroConfluent|Protobuf.*|CapnProto|MsgPack|BSONEachRow|Npy)$/;

/**
 * The Content-Type ClickHouse sends with a format (its formats' getContentType; the JSON-lines family answers
 * application/x-ndjson unless output_format_json_array_of_rows is set).
 */
export function contentType(format, settings = new Map()) {
  if (/^(TSV|TabSeparated)/i.test(format)) return "text/tab-separated-values; charset=UTF-8";
  if (/^CSV/i.test(format)) {
    return `text/csv; charset=UTF-8; header=${/WithNames/i.test(format) ? "present" : "absent"}`;
  }
  const lines = /^(Pretty)?JSON\w*EachRow/i.test(format) && !/^JSONObjectEachRow$/i.test(format);
  if (lines || /^(JSONLines|NDJSON|PrettyJSONLines)$/i.test(format)) {
    const arrayOfRows = /^(1|true)$/i.test(settings.get("output_format_json_array_of_rows") ?? "");
    return arrayOfRows ? "application/json; charset=UTF-8" : "application/x-ndjson; charset=UTF-8";
  }
  if (/^JSON/i.test(format)) return "application/json; charset=UTF-8";
  if (/^XML$/i.test(format)) return "application/xml; charset=UTF-8";
  if (BINARY.test(format)) return "application/octet-stream";
  return "text/plain; charset=UTF-8";
}
