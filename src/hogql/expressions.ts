import { accessChain, filterAsCombinator, type Node, variableName } from "./ast";
import { compareSql, type ExprPrinter, isoConstant, isTimeExpr } from "./comparisons";
import { refuse } from "./errors";
import { lookupField, resolvingAlias } from "./fields";
import { aggregateSql, INTERVAL_UNITS, isAggregate, scalarSql } from "./functions";
import { QueryPrinter } from "./query-printer";
import type { Scope } from "./scope";
import { quoteString } from "../lib/sql";
import { jsonPath, quoteIdent } from "./sqlite-catalog";

const CAST_TYPES: [RegExp, (x: string) => string][] = [
  [/^u?int\d*$|^integer$/, (x) => `CAST(${x} AS INTEGER)`],
  [/^float\d*$|^double$|^real$|^decimal/, (x) => `CAST(${x} AS REAL)`],
  [/^string$|^text$|^varchar/, (x) => `CAST(${x} AS TEXT)`],
  [/^date$/, (x) => `date(${x})`],
  [/^datetime\d*$|^timestamp$/, (x) => `strftime('%Y-%m-%dT%H:%M:%fZ', ${x})`],
];
/**
 * Expressions of a HogQL AST as SQLite: fields resolved through the SELECT's scope (aliases inline,
 * properties as json_extract), HogQL's null-safe comparisons, interval arithmetic and the function
 * catalog. Variables bind as `?2`, `?3`, ... in order of first use (`?1` is the project id).
 */
export abstract class ExpressionPrinter extends QueryPrinter implements ExprPrinter {
  readonly variables: string[] = [];
  /** Variables used as `x IN {variables.list}`: bound as a JSON array, read with json_each. */
  readonly listVariables = new Set<string>();

  exprs(nodes: Node[], scope: Scope): string {
    return nodes.map((e) => this.expr(e, scope)).join(", ");
  }

  expr(n: Node, scope: Scope): string {
    switch (n.node) {
      case "Constant":
        return this.constant(n.value);
      case "Field":
        return this.field(n.chain, scope);
      case "ArrayAccess":
      case "TupleAccess":
        return this.field(accessChain(n), scope);
      case "Alias":
        return resolvingAlias(scope, n.alias, () => this.expr(n.expr, scope));
      case "Placeholder":
        return this.placeholder(n);
      case "And":
      case "Or":
        return `(${n.exprs.map((e: Node) => this.expr(e, scope)).join(n.node === "And" ? " AND " : " OR ")})`;
      case "Not":
        return `(NOT ${this.expr(n.expr, scope)})`;
      case "CompareOperation":
        return compareSql(this, n, scope);
      case "ArithmeticOperation":
        return this.arithmetic(n, scope);
      case "BetweenExpr": {
        const [low, high] = isTimeExpr(n.expr) ? [isoConstant(n.low), isoConstant(n.high)] : [n.low, n.high];
        return `(${this.expr(n.expr, scope)} ${n.negated ? "NOT " : ""}BETWEEN ${this.expr(low, scope)} AND ${this.expr(high, scope)})`;
      }
      case "Tuple":
        return `(${this.exprs(n.exprs, scope)})`;
      case "TypeCast": {
        const cast = CAST_TYPES.find(([re]) => re.test(String(n.type_name).toLowerCase()));
        return cast ? cast[1](this.expr(n.expr, scope)) : refuse(`Cast to ${n.type_name} is not supported`);
      }
      case "Call":
        return this.call(n, scope);
      case "SelectQuery":
      case "SelectSetQuery":
        return `(${this.query(n, scope).sql})`;
      default:
        return refuse(`${n.node} is not supported`);
    }
  }

  private constant(value: unknown): string {
    if (value === null) return "NULL";
    if (typeof value === "boolean") return value ? "1" : "0";
    if (typeof value === "number") return Number.isFinite(value) ? String(value) : refuse(`${value} is not supported`);
    if (typeof value === "string") return quoteString(value);
    return refuse("Unsupported constant");
  }

  private placeholder(n: Node): string {
    const name = variableName(n);
    const chain: unknown[] = n.expr?.chain ?? n.chain ?? [];
    if (chain.length === 1 && chain[0] === "filters") return "1"; // no dashboard filters apply to an endpoint run
    if (!name) return refuse(`Placeholder {${chain.join(".")}} is not supported; use {variables.name}`);
    let index = this.variables.indexOf(name);
    if (index < 0) index = this.variables.push(name) - 1;
    return `?${index + 2}`;
  }

  private field(chain: (string | number)[], scope: Scope): string {
    const target = lookupField(chain, scope);
    if ("alias" in target) {
      const name = String(chain[0]);
      return `(${resolvingAlias(scope, name, () => this.expr(target.alias, scope))})`;
    }
    const column = `${quoteIdent(target.source.alias)}.${quoteIdent(target.column)}`;
    return target.path.length ? `json_extract(${column}, ${jsonPath(target.path)})` : column;
  }

  private arithmetic(n: Node, scope: Scope): string {
    const interval = n.right.node === "Call" ? INTERVAL_UNITS[n.right.name.toLowerCase()] : undefined;
    if (interval && (n.op === "+" || n.op === "-")) {
      const [factor, unit] = interval;
      if (n.right.args.length !== 1) refuse(`${n.right.name} takes 1 argument`);
      const amount = `(${this.expr(n.right.args[0], scope)})${factor === 1 ? "" : ` * ${factor}`}`;
      return `strftime('%Y-%m-%dT%H:%M:%fZ', ${this.expr(n.left, scope)}, printf('%+d ${unit}', ${n.op === "-" ? "-" : ""}${amount}))`;
    }
    const left = this.expr(n.left, scope);
    const right = this.expr(n.right, scope);
    if (n.op === "/") return `(CAST(${left} AS REAL) / ${right})`;
    if (["+", "-", "*", "%"].includes(n.op)) return `(${left} ${n.op} ${right})`;
    return refuse(`Operator ${n.op} is not supported`);
  }

  private call(n: Node, scope: Scope): string {
    if (n.params?.length) refuse(`Parametric function ${n.name}(...)(...) is not supported`);
    if (n.order_by?.length) refuse(`ORDER BY inside ${n.name}(...) is not supported`);
    const name = String(n.name);
    if (name.toLowerCase() in INTERVAL_UNITS) refuse(`${name} can only be added to or subtracted from a date`);
    if (name.toLowerCase() === "tostartofinterval") return this.startOfInterval(n, scope);
    if (isAggregate(name)) {
      const call = filterAsCombinator(n);
      return aggregateSql(call.name, this.args(call, scope), !!n.distinct);
    }
    if (n.filter_expr) refuse(`FILTER applies to aggregate functions, not ${name}`);
    const args = this.args(n, scope);
    if (args.includes("*")) refuse(`${name}(*) is not supported`);
    return scalarSql(name, args);
  }

  private args(call: Node, scope: Scope): string[] {
    return (call.args ?? []).map((a: Node) =>
      a.node === "Field" && a.chain.length === 1 && a.chain[0] === "*" ? "*" : this.expr(a, scope),
    );
  }

  /** `toStartOfInterval(t, INTERVAL n unit)` for seconds to days: buckets aligned on the Unix epoch, as ClickHouse does. */
  private startOfInterval(n: Node, scope: Scope): string {
    const [time, interval] = n.args ?? [];
    const unit = interval?.node === "Call" ? INTERVAL_UNITS[String(interval.name).toLowerCase()] : undefined;
    const amount = interval?.args?.[0];
    const seconds = unit && { seconds: 1, minutes: 60, hours: 3600, days: 86400 }[unit[1]];
    if (
      !time ||
      !seconds ||
      unit[0] !== 1 ||
      amount?.node !== "Constant" ||
      !Number.isInteger(amount.value) ||
      amount.value < 1
    ) {
      return refuse(
        "toStartOfInterval takes a time and INTERVAL n SECOND, MINUTE, HOUR or DAY with a positive integer n",
      );
    }
    const step = seconds * amount.value;
    return `strftime('%Y-%m-%dT%H:%M:%S.000Z', (CAST(strftime('%s', ${this.expr(time, scope)}) AS INTEGER) / ${step}) * ${step}, 'unixepoch')`;
  }
}
