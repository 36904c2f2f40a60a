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
