import { accessChain, filterAsCombinator, type Node, variableName } from "../ast";
import { refuse } from "../errors";
import { lookupField, resolvingAlias } from "../fields";
import { QueryPrinter } from "../query-printer";
import type { Scope } from "../scope";
import { aggregateOf, clickhouseAggregate } from "./aggregates";
import { COLUMN_TYPES } from "./catalog";
import { compare, type ComparisonPrinter } from "./comparisons";
import { type CallContext, clickhouseCall } from "./functions";
import { quoteIdent, quoteString, variableParam } from "./sql";
import { VARIABLE_PARAMS, type VariableType } from "./variables";
import { asInteger, coerce, comparable, type Typed, unify, type ValueType, type Want } from "./values";

/** Variable names become parameter names (`var_<name>`): only plain identifiers may. */
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const CASTS: [RegExp, (x: Typed) => Typed][] = [
  [/^u?int\d*$|^integer$/, asInteger],
  [
    /^float\d*$|^double$|^real$|^decimal/,
    (x) => ({ sql: `accurateCastOrNull(${coerce(x, "value").sql}, 'Float64')`, type: "number" }),
  ],
  [/^string$|^text$|^varchar/, (x) => coerce(x, "string")],
  [/^date$/, (x) => ({ sql: `toDate(${coerce(x, "datetime").sql})`, type: "date" })],
  [/^datetime\d*$|^timestamp$/, (x) => coerce(x, "datetime")],
];

/**
 * Expressions of a HogQL AST as ClickHouse SQL, typed (values.ts) so that operands are converted
 * where ClickHouse, unlike SQLite, would refuse to mix types: fields resolved through the SELECT's
 * scope (aliases inline), properties as their JSON text, HogQL's null-safe comparisons, interval
 * arithmetic and the function catalog (functions.ts, aggregates.ts). Variables bind as typed
 * query parameters `{var_<name>:Type}`; the query's shape is QueryPrinter's.
 */
export abstract class ClickHouseExpressions extends QueryPrinter implements ComparisonPrinter {
  /** HogQL variable names in order of first use. */
  readonly variables: string[] = [];
  /** Each variable's parameter type. */
  readonly variableParams: Record<string, string> = {};
  inJoinCondition = false;

  constructor(
    text: string,
    private readonly variableTypes: Record<string, VariableType>,
  ) {
    super(text);
  }

  expr(n: Node, scope: Scope): Typed {
    switch (n.node) {
      case "Constant":
        return constant(n.value);
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
        return {
          sql: `(${n.exprs.map((e: Node) => this.truth(e, scope)).join(n.node === "And" ? " AND " : " OR ")})`,
          type: "number",
        };
      case "Not":
        return { sql: `(NOT ${this.truth(n.expr, scope)})`, type: "number" };
      case "CompareOperation":
        return compare(this, n, scope);
      case "ArithmeticOperation":
        return this.arithmetic(n, scope);
      case "BetweenExpr": {
        const [subject, low, high] = [n.expr, n.low, n.high].map((e: Node) => this.expr(e, scope));
        const [x, l] = comparable(subject, low);
        const [, h] = comparable(subject, high);
        return { sql: `(${x.sql} ${n.negated ? "NOT " : ""}BETWEEN ${l.sql} AND ${h.sql})`, type: "number" };
      }
      case "Tuple":
        return { sql: `tuple(${n.exprs.map((e: Node) => this.value(e, scope)).join(", ")})`, type: "unknown" };
      case "Array":
        return {
          sql: `[${unify(n.exprs.map((e: Node) => this.expr(e, scope)))
            .map((t) => t.sql)
            .join(", ")}]`,
          type: "array",
        };
      case "TypeCast": {
        const cast = CASTS.find(([re]) => re.test(String(n.type_name).toLowerCase()));
        return cast ? cast[1](this.expr(n.expr, scope)) : refuse(`Cast to ${n.type_name} is not supported`);
      }
      case "Call":
        return this.call(n, scope);
      case "SelectQuery":
      case "SelectSetQuery": {
        const inner = this.query(n, scope);
        return { sql: `(${inner.sql})`, type: (inner.types?.[0] || "unknown") as ValueType };
      }
      case "Lambda":
        return refuse("Lambdas (x -> ...) are not supported");
      default:
        return refuse(`${n.node} is not supported`);
    }
  }

  /** An expression read as a value (a property as its string form). */
  value(n: Node, scope: Scope): string {
    return coerce(this.expr(n, scope), "value").sql;
  }

  /** An expression read as a condition (WHERE, HAVING, ON, AND/OR/NOT, if, -If). */
  protected truth(n: Node, scope: Scope): string {
    return coerce(this.expr(n, scope), "condition").sql;
  }

  private field(chain: (string | number)[], scope: Scope): Typed {
    const target = lookupField(chain, scope);
    if ("alias" in target) {
      const inner = resolvingAlias(scope, String(chain[0]), () => this.expr(target.alias, scope));
      return { sql: `(${inner.sql})`, type: inner.type };
    }
    const { source, column, path } = target;
    const sql = `${quoteIdent(source.alias)}.${quoteIdent(column)}`;
    if (path.length) return { sql: `JSONExtractRaw(${sql}, ${path.map(jsonKey).join(", ")})`, type: "json" };
    const type = source.table
      ? COLUMN_TYPES[source.table][column]
      : ((source.types?.[source.columns?.indexOf(column) ?? -1] || "unknown") as ValueType);
    return { sql, type: type ?? "unknown" };
  }

  private placeholder(n: Node): Typed {
    const chain: unknown[] = n.expr?.chain ?? n.chain ?? [];
    if (chain.length === 1 && chain[0] === "filters") return { sql: "1", type: "number" }; // no dashboard filters apply to an endpoint run
    const name = variableName(n);
    if (!name) return refuse(`Placeholder {${chain.join(".")}} is not supported; use {variables.name}`);
    const type = this.variableTypes[name] ?? "String";
    if (type === "List") return refuse(`Variable ${name} is a List: compare it with IN {variables.${name}}`);
    return this.bind(name, VARIABLE_PARAMS[type].param, VARIABLE_PARAMS[type].type);
  }

  listVariable(n: Node): Typed {
    return this.bind(variableName(n)!, VARIABLE_PARAMS.List.param, "array");
  }

  private bind(name: string, param: string, type: ValueType): Typed {
    if (!VARIABLE_NAME.test(name)) refuse(`Variable name ${JSON.stringify(name)} must be a plain identifier`);
    const bound = this.variableParams[name];
    if (bound !== undefined && bound !== param)
      refuse(`Variable ${name} is compared with IN in one place and used as a single value in another`);
    if (bound === undefined) {
      this.variables.push(name);
      this.variableParams[name] = param;
    }
    return { sql: `{${variableParam(name)}:${param}}`, type };
  }

  private arithmetic(n: Node, scope: Scope): Typed {
    if (!["+", "-", "*", "/", "%"].includes(n.op)) return refuse(`Operator ${n.op} is not supported`);
    const right = this.expr(n.right, scope);
    if (right.type === "interval") {
      if (n.op !== "+" && n.op !== "-") refuse("An interval can only be added to or subtracted from a date");
      const left = coerce(this.expr(n.left, scope), "datetime");
      return { sql: `(${left.sql} ${n.op} ${right.sql})`, type: left.type === "date" ? "date" : "datetime" };
    }
    const toNumber = (t: Typed) => (t.type === "json" || t.type === "string" ? coerce(t, "number") : t);
    const left = toNumber(this.expr(n.left, scope));
    return { sql: `(${left.sql} ${n.op} ${toNumber(right).sql})`, type: "number" };
  }

  private call(n: Node, scope: Scope): Typed {
    if (n.params?.length) refuse(`Parametric function ${n.name}(...)(...) is not supported`);
    if (n.order_by?.length) refuse(`ORDER BY inside ${n.name}(...) is not supported`);
    const name = String(n.name);
    if (aggregateOf(name)) {
      const call = filterAsCombinator(n);
      const conditional = aggregateOf(call.name)!.conditional;
      const nodes: Node[] = (call.args ?? []).filter((a: Node) => !isStarArgument(a));
      const args = (conditional ? nodes.slice(0, -1) : nodes).map((a) => this.expr(a, scope));
      if (conditional && !nodes.length) refuse(`${name} needs a condition`);
      const condition = conditional ? this.truth(nodes.at(-1)!, scope) : undefined;
      return clickhouseAggregate(call.name, args, condition, !!n.distinct);
    }
    if (n.filter_expr) refuse(`FILTER applies to aggregate functions, not ${name}`);
    const nodes: Node[] = n.args ?? [];
    if (nodes.some(isStarArgument)) refuse(`${name}(*) is not supported`);
    const context: CallContext = {
      name,
      nodes,
      arg: (i: number, want: Want) => coerce(this.expr(nodes[i], scope), want),
      args: (want: Want, from = 0) => nodes.slice(from).map((a) => coerce(this.expr(a, scope), want)),
    };
    return clickhouseCall(context);
  }
}

const isStarArgument = (a: Node) => a.node === "Field" && a.chain.length === 1 && a.chain[0] === "*";

function constant(value: unknown): Typed {
  if (value === null) return { sql: "NULL", type: "null" };
  if (typeof value === "boolean") return { sql: value ? "1" : "0", type: "number" };
  if (typeof value === "number")
    return Number.isFinite(value) ? { sql: String(value), type: "number" } : refuse(`${value} is not supported`);
  if (typeof value === "string") return { sql: quoteString(value), type: "string" };
  return refuse("Unsupported constant");
}

/** A JSON path step: a key, or a 1-based index (as HogQL's and ClickHouse's JSON functions both count). */
function jsonKey(part: string | number): string {
  if (typeof part === "string") return quoteString(part);
  if (!Number.isInteger(part) || part < 1) return refuse(`Array index ${part} is not supported (indexes start at 1)`);
  return String(part);
}
