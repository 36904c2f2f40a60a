import type { SQL } from "drizzle-orm";
import { CasingCache } from "drizzle-orm/casing";
import { SQLiteSyncDialect } from "drizzle-orm/sqlite-core";

const dialect = new SQLiteSyncDialect();
const casing = new CasingCache();

/** A SQLite string literal (single quotes doubled): for text the statement must hold as written. */
export const quoteString = (value: string) => `'${value.replaceAll("'", "''")}'`;

/** A drizzle `sql` statement as SQLite text with positional `?` parameters and their values. */
export const renderSql = (statement: SQL) => dialect.sqlToQuery(statement);

/**
 * Bound parameters for one hand-written statement (bulk writes, analysis), as numbered `?N`
 * placeholders: the one way this code base writes SQL that drizzle's builder does not express
 * (docs/architecture.md). Equal values share one number, which keeps long analysis queries under
 * D1's limit of 100 bound parameters; a list goes as one JSON parameter read with `json_each`.
 */
export class Params {
  private readonly values: unknown[] = [];
  private readonly index = new Map<string, number>();

  bind(value: string | number | null): string {
    const key = `${typeof value}:${String(value)}`;
    let n = this.index.get(key);
    if (n === undefined) {
      this.values.push(value);
      n = this.values.length;
      this.index.set(key, n);
    }
    return `?${n}`;
  }

  /** A list as one JSON parameter, to be read with `json_each` (no per-item parameters). */
  bindList(values: readonly (string | number)[]): string {
    return `(SELECT value FROM json_each(${this.bind(JSON.stringify(values))}))`;
  }

  /**
   * A drizzle `sql` fragment (e.g. a compiled property filter) as text of this statement: drizzle
   * renders it, handing each of its values to `bind`, so both share one numbering.
   */
  embed(fragment: SQL): string {
    return fragment.toQuery({
      casing,
      escapeName: dialect.escapeName,
      escapeString: dialect.escapeString,
      escapeParam: (_n, value) => this.bind(value as string | number | null),
    }).sql;
  }

  get list(): unknown[] {
    return this.values;
  }
}

/**
 * The type PostHog gives a property from one of its JSON values, over a row of `json_each` aliased
 * `j`: numbers Numeric, booleans Boolean, texts starting with an ISO date DateTime, other texts
 * String; NULL for null, objects and arrays.
 */
export const PROPERTY_KIND_OF_JSON_EACH = `CASE j.type WHEN 'integer' THEN 'Numeric' WHEN 'real' THEN 'Numeric'
    WHEN 'true' THEN 'Boolean' WHEN 'false' THEN 'Boolean'
    WHEN 'text' THEN CASE WHEN j.value GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]*' THEN 'DateTime' ELSE 'String' END END`;
