import { refuse } from "./errors";

/** A node of the AST that @posthog/hogql-parser returns as JSON (PostHog's `posthog/hogql/ast.py` shapes). */
export interface Node {
  node: string;
  start?: { offset: number };
  end?: { offset: number };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the parser's JSON has a field set per node type, read by name where each type is handled.
  [key: string]: any;
}

/** A SELECT's CTEs come as a list or (older parsers) a name-keyed object. */
export const ctesOf = (select: Node): Node[] =>
  select.ctes ? (Array.isArray(select.ctes) ? select.ctes : Object.values(select.ctes)) : [];

/** The `{variables.name}` code name of a placeholder, if it is one. */
export function variableName(node: Node): string | undefined {
  if (node.node !== "Placeholder") return undefined;
  const chain: unknown[] = node.expr?.chain ?? node.chain ?? [];
  return chain.length === 2 && chain[0] === "variables" && typeof chain[1] === "string" ? chain[1] : undefined;
}

/** `*` or `alias.*` in a select list. */
export const isStar = (node: Node): boolean => node.node === "Field" && node.chain.at(-1) === "*";

/**
 * `properties['a b'].c` arrives as nested ArrayAccess (and `x.1` as TupleAccess) over a Field: the
 * field chain they spell together, e.g. `["properties", "a b", "c"]`.
 */
export function accessChain(n: Node): (string | number)[] {
  const chain: (string | number)[] = [];
  let cur: Node = n;
  while (cur.node === "ArrayAccess" || cur.node === "TupleAccess") {
    if (cur.node === "TupleAccess") {
      chain.unshift(Number(cur.index));
      cur = cur.tuple;
      continue;
    }
    if (cur.property.node !== "Constant" || !["string", "number"].includes(typeof cur.property.value))
      refuse("Only literal keys and indexes are supported in [...]");
    chain.unshift(cur.property.value);
    cur = cur.array;
  }
  if (cur.node !== "Field") return refuse("[...] access is only supported on properties");
  return [...cur.chain, ...chain];
}

/** PostHog names an unaliased column after its field, or after the expression's text. */
export function columnName(item: Node, text: string): string {
  if (item.node === "Alias") return item.alias;
  if (item.node === "Field" && typeof item.chain.at(-1) === "string") return item.chain.at(-1);
  if (item.start && item.end) return text.slice(item.start.offset, item.end.offset);
  return item.node === "Placeholder" ? (variableName(item) ?? "placeholder") : item.node;
}

/**
 * `agg(x) FILTER (WHERE c)` is the -If combinator by another name: `aggIf(x, c)`, and
 * `aggIf(x, a) FILTER (WHERE c)` is `aggIf(x, a AND c)`. Returns the call unchanged without FILTER.
 */
export function filterAsCombinator(call: Node): Node {
  const filter: Node | null | undefined = call.filter_expr;
  if (!filter) return call;
  const args: Node[] = call.args ?? [];
  const name = String(call.name);
  const conditional = name.toLowerCase().endsWith("if");
  return {
    ...call,
    name: conditional ? name : `${name}If`,
    args: conditional ? [...args.slice(0, -1), { node: "And", exprs: [args.at(-1), filter] }] : [...args, filter],
    filter_expr: null,
  };
}
