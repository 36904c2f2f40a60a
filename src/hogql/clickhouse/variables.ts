import { HogQLError } from "../errors";
import type { ValueType } from "./values";

/**
 * PostHog's InsightVariable types. ClickHouse parameters are typed in the SQL (`{name:Type}`), so
 * each variable's type is fixed when the query is compiled: from its definition's `type`, else
 * from its stored value (variableTypeOf), else String.
 */
export type VariableType = "String" | "Number" | "Boolean" | "Date" | "List";

/** How each type binds: its ClickHouse parameter type and the printer's type for it. */
export const VARIABLE_PARAMS: Record<VariableType, { param: string; type: ValueType }> = {
  String: { param: "Nullable(String)", type: "string" },
  // Dates arrive as text (`2026-01-01`, `2026-01-01 10:00`); compared with a time they are parsed, as string literals are.
  Date: { param: "Nullable(String)", type: "string" },
  Number: { param: "Nullable(Float64)", type: "number" },
  // As D1 binds booleans: 1 and 0.
  Boolean: { param: "Nullable(UInt8)", type: "number" },
  // `x IN {variables.list}`, whatever the variable's type: a single value is a one-element list, as on D1.
  List: { param: "Array(String)", type: "array" },
};

/** The type a variable without one takes, from the value stored with it. */
export function variableTypeOf(value: unknown): VariableType {
  if (Array.isArray(value)) return "List";
  if (typeof value === "number") return "Number";
  if (typeof value === "boolean") return "Boolean";
  return "String";
}

/**
 * A run's value for a variable, as its parameter type takes it; a value that cannot be one is a
 * HogQLError naming the variable (a 400 for the run). Booleans are 1/0, as on D1.
 */
export function bindVariable(name: string, param: string, value: unknown): unknown {
  if (param === VARIABLE_PARAMS.List.param) {
    const values = value === null || value === undefined ? [] : Array.isArray(value) ? value : [value];
    return values.map((v) => text(v) ?? fail(name, "a list of strings, numbers or booleans"));
  }
  if (value === null || value === undefined) return null;
  if (param === VARIABLE_PARAMS.Number.param) {
    const n =
      typeof value === "boolean" ? Number(value) : typeof value === "string" && value.trim() ? Number(value) : value;
    return typeof n === "number" && Number.isFinite(n) ? n : fail(name, "a number");
  }
  if (param === VARIABLE_PARAMS.Boolean.param) {
    if (typeof value === "boolean") return Number(value);
    if (value === 0 || value === 1) return value;
    if (value === "true" || value === "false") return Number(value === "true");
    return fail(name, "a boolean");
  }
  return text(value) ?? fail(name, "a string, number or boolean");
}

const text = (v: unknown): string | undefined =>
  typeof v === "string"
    ? v
    : typeof v === "number"
      ? String(v)
      : typeof v === "boolean"
        ? String(Number(v))
        : undefined;

const fail = (name: string, what: string): never => {
  throw new HogQLError(`Variable ${name} must be ${what}`);
};
