/** Evaluation reasons and their ranking (flag-eval.md §5, the server's current scores). */
export type ReasonCode =
  | "super_condition_value"
  | "holdout_condition_value"
  | "condition_match"
  | "out_of_rollout_bound"
  | "no_condition_match"
  | "no_group_type"
  | "flag_disabled"
  | "missing_dependency";

export const REASON_SCORE: Record<ReasonCode, number> = {
  super_condition_value: 6,
  holdout_condition_value: 5,
  condition_match: 4,
  out_of_rollout_bound: 3,
  no_condition_match: 2,
  no_group_type: 1,
  flag_disabled: 0,
  missing_dependency: -1,
};

export interface Reason {
  /** A ReasonCode, or an error code on error records (`failed: true`). */
  code: ReasonCode | (string & {});
  condition_index: number | null;
  description: string;
}

const GROUPS_NOT_EVALUATED =
  "No matching condition set (group conditions were not evaluated because no group type was provided)";

export function describe(code: ReasonCode, conditionIndex: number | null, groupsSkipped = false): string {
  switch (code) {
    case "super_condition_value":
      return "Super condition value";
    case "holdout_condition_value":
      return "Holdout condition value";
    case "condition_match":
      return `Matched condition set ${(conditionIndex ?? 0) + 1}`;
    case "out_of_rollout_bound":
      return "Out of rollout bound";
    case "no_condition_match":
      return groupsSkipped ? GROUPS_NOT_EVALUATED : "No matching condition set";
    case "no_group_type":
      return "No group type";
    case "flag_disabled":
      return "Feature flag is disabled";
    case "missing_dependency":
      return "Flag cannot be evaluated due to missing dependency";
  }
}

// Reasons are shared, never mutated: one object per (code, condition index, groupsSkipped) saves
// building a description string for each of a request's flags. Looked up by array slot, not by a
// composed string key (this runs once per flag and request).
const reasons = new Map<ReasonCode, Reason[]>();

export function reason(code: ReasonCode, conditionIndex: number | null, groupsSkipped = false): Reason {
  const slot = ((conditionIndex ?? -1) + 1) * 2 + (groupsSkipped ? 1 : 0);
  if (!(slot >= 0 && slot < 2000))
    return { code, condition_index: conditionIndex, description: describe(code, conditionIndex, groupsSkipped) };
  let byCode = reasons.get(code);
  if (!byCode) reasons.set(code, (byCode = []));
  return (byCode[slot] ??= {
    code,
    condition_index: conditionIndex,
    description: describe(code, conditionIndex, groupsSkipped),
  });
}
