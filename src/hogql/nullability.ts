import type { Node } from "./ast";
import { NON_NULL_COLUMNS } from "./catalog";
import type { Scope } from "./scope";

/** Functions that never answer NULL on non-NULL arguments (dates and times of known values). */
const NON_NULL_CALL = /^(tostartof|todate)/;
const NEVER_NULL_CALLS = ["now", "today", "yesterday"];

/**
 * Whether an operand can never be NULL, so a comparison needs no null-safe guard (which keeps the
 * engine's indexes usable). Read off the AST, the same for every engine.
 */
export function nonNull(n: Node, scope: Scope): boolean {
  if (n.node === "Constant") return n.value !== null;
  if (n.node === "Field") {
    // Only a column of the one catalog table in FROM: with joins, any side may be NULL-extended.
    const [only, ...others] = scope.sources;
    if (!only?.table || others.length || scope.aliases.has(n.chain[0])) return false;
    const chain = n.chain.length === 2 && n.chain[0] === only.alias ? n.chain.slice(1) : n.chain;
    return chain.length === 1 && NON_NULL_COLUMNS.has(chain[0]);
  }
  if (n.node === "ArithmeticOperation") return nonNull(n.left, scope) && nonNull(n.right, scope);
  if (n.node === "Call") {
    const name = n.name.toLowerCase();
    if (NEVER_NULL_CALLS.includes(name) || /^tointerval/.test(name)) return true;
    return NON_NULL_CALL.test(name) && n.args.every((a: Node) => nonNull(a, scope));
  }
  return false;
}
