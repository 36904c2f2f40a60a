// The little SQL this server writes or looks at: quoting for the SET and USE statements it sends on behalf of a
// request, and recognising an INSERT (which takes the data path) without parsing the statement.

/** A single-quoted ClickHouse string literal (backslash escapes, as ClickHouse's lexer reads them). */
export function quoteString(value) {
  return `'${value.replace(/[\\']/g, (c) => `\\${c}`)}'`;
}

/** A backquoted ClickHouse identifier, so that any name reaches the engine as given (and fails there if unknown). */
export function quoteIdentifier(name) {
  return `\`${name.replace(/[\\`]/g, (c) => `\\${c}`)}\``;
}

/** The statement without the whitespace and comments (`--`, `#!`, `/* *\/`) ClickHouse allows before it. */
function withoutLeadingComments(sql) {
  let rest = sql;
  for (;;) {
    const trimmed = rest.trimStart();
    if (trimmed.startsWith("--") || trimmed.startsWith("#!")) {
      const end = trimmed.indexOf("\n");
      rest = end < 0 ? "" : trimmed.slice(end + 1);
    } else if (trimmed.startsWith("/*")) {
      const end = trimmed.indexOf("*/");
      rest = end < 0 ? "" : trimmed.slice(end + 2);
    } else {
      return trimmed;
    }
  }
}

/** Whether a statement is an INSERT (its first keyword; a CTE-prefixed SELECT ... is not). */
export function isInsert(sql) {
  return /^INSERT\b/i.test(withoutLeadingComments(sql));
}

/** Whether there is no statement at all (ClickHouse answers "Empty query"). */
export function isEmptyQuery(sql) {
  return withoutLeadingComments(sql).length === 0;
}
