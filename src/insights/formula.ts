import { validationError } from "../lib/errors";

/**
 * Trends formulas (PostHog's FormulaAST, posthog/hogql_queries/insights/trends/utils): series as
 * letters A, B, C... (case-insensitive), numbers, `+ - * / % **`, unary signs and parentheses,
 * evaluated element by element; a division (or remainder) by zero is 0.
 */
export type Formula = (values: number[]) => number;

type Token = { kind: "num"; value: number } | { kind: "var"; index: number } | { kind: "op"; op: string };

const TOKEN = /\s*(?:(\d+(?:\.\d*)?|\.\d+)|([a-z])|(\*\*|[-+*/%()]))/y;

function tokenize(text: string, seriesCount: number, attr: string): Token[] {
  const tokens: Token[] = [];
  const source = text.toLowerCase();
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < source.length) {
    if (/^\s*$/.test(source.slice(TOKEN.lastIndex))) break;
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(source);
    if (!m) throw validationError(`Formula "${text}" has an unexpected character at position ${at + 1}.`, attr);
    if (m[1] !== undefined) tokens.push({ kind: "num", value: Number(m[1]) });
    else if (m[2] !== undefined) {
      const index = m[2].charCodeAt(0) - 97;
      if (index >= seriesCount)
        throw validationError(
          `Formula "${text}" refers to ${m[2].toUpperCase()}, but the query has ${seriesCount} series.`,
          attr,
        );
      tokens.push({ kind: "var", index });
    } else tokens.push({ kind: "op", op: m[3] });
  }
  return tokens;
}

const divide = (a: number, b: number) => (b === 0 ? 0 : a / b);
const remainder = (a: number, b: number) => (b === 0 ? 0 : a % b);

/** Parses a formula over `seriesCount` series; a malformed one is a 400 on `attr`. */
export function parseFormula(text: string, seriesCount: number, attr: string): Formula {
  const tokens = tokenize(text, seriesCount, attr);
  let i = 0;
  const fail = (): never => {
    throw validationError(`Formula "${text}" is not a valid expression.`, attr);
  };
  const peek = (op: string) => tokens[i]?.kind === "op" && (tokens[i] as { op: string }).op === op;
  // Python's precedence: + - below * / % below unary signs below **.
  const sum = (): Formula => {
    let left = product();
    while (peek("+") || peek("-")) {
      const op = (tokens[i++] as { op: string }).op;
      const l = left;
      const r = product();
      left = op === "+" ? (v) => l(v) + r(v) : (v) => l(v) - r(v);
    }
    return left;
  };
  const product = (): Formula => {
    let left = unary();
    while (peek("*") || peek("/") || peek("%")) {
      const op = (tokens[i++] as { op: string }).op;
      const l = left;
      const r = unary();
      left = op === "*" ? (v) => l(v) * r(v) : op === "/" ? (v) => divide(l(v), r(v)) : (v) => remainder(l(v), r(v));
    }
    return left;
  };
  const unary = (): Formula => {
    if (peek("-")) {
      i++;
      const inner = unary();
      return (v) => -inner(v);
    }
    if (peek("+")) {
      i++;
      return unary();
    }
    return power();
  };
  const power = (): Formula => {
    const base = atom();
    if (!peek("**")) return base;
    i++;
    const exponent = unary();
    return (v) => base(v) ** exponent(v);
  };
  const atom = (): Formula => {
    const t = tokens[i++] ?? fail();
    if (t.kind === "num") return () => t.value;
    if (t.kind === "var") return (v) => v[t.index] ?? 0;
    if (t.op !== "(") return fail();
    const inner = sum();
    if (!peek(")")) fail();
    i++;
    return inner;
  };
  const formula = sum();
  if (i !== tokens.length) fail();
  return (values) => {
    const result = formula(values);
    return Number.isFinite(result) ? result : 0;
  };
}
