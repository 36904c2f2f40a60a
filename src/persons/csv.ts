/**
 * PostHog's CSV export of a list (djangorestframework-csv): each row flattened with `.`
 * (`properties.email`, `distinct_ids.0`), the header the sorted union of all keys, empty lists
 * giving no column, missing cells empty, CRLF line ends.
 */
export function toCsv(rows: Record<string, unknown>[]): string {
  const flat = rows.map((r) => flatten(r));
  const header = [...new Set(flat.flatMap((r) => Object.keys(r)))].sort();
  const lines = [header.map(cell).join(",")];
  for (const r of flat) lines.push(header.map((h) => cell(r[h])).join(","));
  return `${lines.join("\r\n")}\r\n`;
}

function flatten(value: unknown, prefix = "", out: Record<string, unknown> = {}): Record<string, unknown> {
  if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else if (prefix) out[prefix] = value;
  return out;
}

function cell(value: unknown): string {
  if (value === undefined || value === null) return "";
  const text = typeof value === "boolean" ? (value ? "True" : "False") : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
