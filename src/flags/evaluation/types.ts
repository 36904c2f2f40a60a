import type { CohortSource, PropertyGroup } from "./cohorts";
import type { PropertyFilter } from "./properties";
import type { Reason } from "./reasons";

export interface Condition {
  properties?: PropertyFilter[] | null;
  rollout_percentage?: number | null;
  variant?: string | null;
  aggregation_group_type_index?: number | null;
}

export interface Variant {
  key: string;
  name?: string | null;
  rollout_percentage: number;
}

export interface FlagFilters {
  groups?: Condition[];
  multivariate?: { variants?: Variant[] } | null;
  payloads?: Record<string, unknown>;
  aggregation_group_type_index?: number | null;
  super_groups?: Condition[];
  feature_enrollment?: boolean | null;
  holdout?: { id: number; exclusion_percentage: number } | null;
  early_exit?: boolean | null;
  bucketing_identifier?: string | null;
}

/**
 * A flag as the evaluator reads it: the local-evaluation payload's shape, in which flag
 * dependencies name the dependency by key and carry a `dependency_chain`.
 */
export interface FlagDefinition {
  id: number;
  key: string;
  active: boolean;
  deleted?: boolean;
  version?: number;
  name?: string;
  ensure_experience_continuity?: boolean | null;
  bucketing_identifier?: string | null;
  /** `all`, `client` or `server`: which callers see the flag. */
  evaluation_runtime?: string | null;
  /** Evaluation contexts the flag is restricted to (empty: every context). */
  evaluation_tags?: string[] | null;
  filters: FlagFilters;
}

export interface EvaluationContext {
  distinctId: string;
  /** Stored person properties overlaid with the request's (the request wins), plus `distinct_id`. */
  personProperties: Record<string, unknown>;
  /** `{group type name: group key}` from the request. */
  groups: Record<string, unknown>;
  /** `{group type name: properties}`: stored overlaid with the request's. */
  groupProperties: Record<string, Record<string, unknown>>;
  /** `{"0": "company"}`. */
  groupTypeMapping: Record<string, string>;
  cohorts: CohortSource;
  /** Experience continuity: flag key → the identifier the person was first bucketed by. */
  hashKeyOverrides: Record<string, string>;
  anonDistinctId?: string;
  deviceId?: string;
  now: Date;
}

export interface FlagResult {
  key: string;
  enabled: boolean;
  variant: string | null;
  reason: Reason;
  payload: unknown;
  flag: FlagDefinition;
  /** An error record: the flag could not be evaluated (its reason code is the error code). */
  failed?: boolean;
}

export type { PropertyGroup, PropertyFilter };
