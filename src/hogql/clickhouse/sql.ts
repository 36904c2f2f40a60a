/**
 * ClickHouse's SQL spelling, for the printer. ClickHouse reads backslash escapes inside quoted names
 * and strings (`'\''` is a quote), so escaping only the quote, as SQLite's quoting does, would let a
 * trailing backslash end a literal early: both quote and backslash are escaped here.
 */
export const quoteIdent = (name: string) => `"${name.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
export const quoteString = (value: string) => `'${value.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;

/**
 * The query parameters every compiled query may use; the values are bound at run time
 * (clickhouse/params.ts), never printed into the SQL.
 */
export const TEAM_PARAM = "{team_id:Int64}";
/** The project's time zone: timestamps are read in it, so date functions bucket in the project's zone. */
export const TIMEZONE_PARAM = "{timezone:String}";
export const LIMIT_PARAM = "{limit:UInt64}";
export const OFFSET_PARAM = "{offset:UInt64}";
/** HogQL `{variables.name}` binds as the query parameter `var_<name>`. */
export const variableParam = (name: string) => `var_${name}`;
