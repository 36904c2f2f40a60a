import { validationError } from "../lib/errors";

/**
 * A funnel breakdown value asked about (PostHog's `funnelStepBreakdown`), as the texts it compares
 * with: a value is a list of one, lists are flattened as PostHog's arrayFlatten does, and no value
 * (`null`) is `""`. A number on its own is cut to an integer first, as PostHog does (`str(int(value))`).
 */
export function breakdownValueTexts(raw: unknown, attr: string): string[] {
  if (typeof raw === "number") return [String(Math.trunc(raw))];
  const texts: string[] = [];
  const add = (value: unknown, depth: number) => {
    if (Array.isArray(value) && depth < 3) for (const v of value) add(v, depth + 1);
    else if (value === null || value === undefined) texts.push("");
    else if (typeof value === "object")
      throw validationError(`${attr} must be a breakdown value or a list of them.`, attr);
    else texts.push(String(value));
  };
  add(raw, 0);
  return texts;
}
