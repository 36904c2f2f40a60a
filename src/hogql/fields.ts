import type { Node } from "./ast";
import { catalogReference, type ColumnReference } from "./catalog";
import { refuse } from "./errors";
import type { Scope, Source } from "./scope";

/**
 * What a field names, whatever the engine prints: an alias of the SELECT (inlined as its
 * expression, as HogQL does), or a column of a source in scope with a JSON path into it.
 */
export type FieldTarget = { alias: Node } | ({ source: Source } & ColumnReference);

/**
 * Resolves a field chain in the SELECT's scope, then in the enclosing ones (correlated subqueries):
 * an alias of the SELECT (unless it is being resolved, so `x + 1 AS x` reads the column), a chain
 * that starts with a source's alias, or the first source that has the column. Unknown fields are refused.
 */
export function lookupField(chain: (string | number)[], scope: Scope): FieldTarget {
  const head = chain[0];
  if (chain.length === 1 && typeof head === "string") {
    const alias = scope.aliases.get(head);
    if (alias && !scope.resolving.has(head)) return { alias };
  }
  for (let s: Scope | undefined = scope; s; s = s.parent) {
    const found = inScope(chain, s);
    if (found) return found;
  }
  return refuse(`Unknown field: ${chain.join(".")}`);
}

function inScope(chain: (string | number)[], scope: Scope): FieldTarget | undefined {
  if (chain.length > 1) {
    const source = scope.sources.find((s) => s.alias === chain[0]);
    if (source) {
      const reference = onSource(source, chain.slice(1)) ?? refuse(`Unknown field: ${chain.join(".")}`);
      return { source, ...reference };
    }
  }
  for (const source of scope.sources) {
    const reference = onSource(source, chain);
    if (reference) return { source, ...reference };
  }
  return undefined;
}

/** A catalog table's column, or a subquery's (or CTE's) output column, with any rest of the chain as a JSON path. */
function onSource(source: Source, chain: (string | number)[]): ColumnReference | undefined {
  if (source.table) return catalogReference(source.table, chain);
  const [head, ...path] = chain;
  if (typeof head !== "string" || (source.columns && !source.columns.includes(head))) return undefined;
  return { column: head, path };
}

/** Prints with `alias` marked as being resolved, so a reference to it inside its own expression reads the column. */
export function resolvingAlias<T>(scope: Scope, alias: string, print: () => T): T {
  const had = scope.resolving.has(alias);
  scope.resolving.add(alias);
  try {
    return print();
  } finally {
    if (!had) scope.resolving.delete(alias);
  }
}
