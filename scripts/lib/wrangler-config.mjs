// Reading and filling resource ids in wrangler.toml, for `npm run setup:cloudflare`. The file is
// edited as text, line by line, so its comments and layout survive.

/**
 * The `[[table]]` blocks of a TOML text, each with its line range and its `key = "string"` pairs.
 * Enough for wrangler.toml's binding tables; not a general TOML parser.
 */
function tableBlocks(lines, table) {
  const blocks = [];
  let current;
  lines.forEach((line, index) => {
    const header = /^\s*\[\[?\s*([^\]\s]+)\s*\]\]?\s*(#.*)?$/.exec(line);
    if (header) {
      current = header[1] === table ? { start: index, end: index, values: {} } : undefined;
      if (current) blocks.push(current);
      return;
    }
    if (!current) return;
    current.end = index;
    const pair = /^\s*([A-Za-z0-9_-]+)\s*=\s*"([^"]*)"/.exec(line);
    if (pair) current.values[pair[1]] = { value: pair[2], line: index };
  });
  return blocks;
}

/** The string values of the `[[table]]` block whose `match` key has the given value, or undefined. */
export function bindingValues(toml, table, [matchKey, matchValue]) {
  const block = tableBlocks(toml.split("\n"), table).find((b) => b.values[matchKey]?.value === matchValue);
  if (!block) return undefined;
  return Object.fromEntries(Object.entries(block.values).map(([k, v]) => [k, v.value]));
}

/**
 * Sets `key = "value"` in the `[[table]]` block whose `match` key has the given value: replaces the
 * key's line if present, otherwise adds it right after the matching line.
 */
export function setBindingValue(toml, table, [matchKey, matchValue], key, value) {
  const lines = toml.split("\n");
  const block = tableBlocks(lines, table).find((b) => b.values[matchKey]?.value === matchValue);
  if (!block) throw new Error(`wrangler.toml has no [[${table}]] with ${matchKey} = "${matchValue}"`);
  const entry = `${key} = "${value}"`;
  const existing = block.values[key];
  if (existing) lines[existing.line] = entry;
  else lines.splice(block.values[matchKey].line + 1, 0, entry);
  return lines.join("\n");
}

/** The worker's name (`name = "..."` before the first table). */
export function workerName(toml) {
  for (const line of toml.split("\n")) {
    if (/^\s*\[/.test(line)) break;
    const match = /^\s*name\s*=\s*"([^"]+)"/.exec(line);
    if (match) return match[1];
  }
  throw new Error("wrangler.toml has no top-level name");
}

/** The queues of a ClickHouse deployment, named after the worker: capture's events, and where poison batches end. */
export const eventQueues = (name) => ({ events: `${name}-events`, deadLetter: `${name}-events-dlq` });

/**
 * The config with the events queue's producer (capture, binding EVENTS_QUEUE) and consumer (the
 * worker's queue handler, inserting into ClickHouse) appended; unchanged when it has the producer.
 * Only ClickHouse deployments carry these: wrangler refuses to deploy a binding to a queue that
 * does not exist, so the D1 default declares none.
 */
export function withEventQueues(toml) {
  if (bindingValues(toml, "queues.producers", ["binding", "EVENTS_QUEUE"])) return toml;
  const { events, deadLetter } = eventQueues(workerName(toml));
  return `${toml.replace(/\n*$/, "\n")}
# ClickHouse ingestion (docs/operations.md, "Running on ClickHouse"): capture queues the events, the
# consumer inserts them in batches and acknowledges once stored. Retries back off to 5 minutes, so
# 100 of them outlive hours of ClickHouse downtime before a batch goes to the dead-letter queue.
[[queues.producers]]
binding = "EVENTS_QUEUE"
queue = "${events}"

[[queues.consumers]]
queue = "${events}"
max_batch_size = 100
max_batch_timeout = 5
max_retries = 100
dead_letter_queue = "${deadLetter}"
`;
}
