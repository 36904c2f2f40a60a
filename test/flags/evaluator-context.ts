import type { PropertyGroup } from "../../src/flags/evaluation/cohorts";
import type { EvaluationContext } from "../../src/flags/evaluation/types";

/** A server evaluation context for unit tests of the evaluator. */
export function contextFor(
  distinctId: string,
  personProperties: Record<string, unknown> = {},
  extra: Partial<EvaluationContext> & { cohortDefinitions?: Record<string, PropertyGroup> } = {},
): EvaluationContext {
  const { cohortDefinitions, ...rest } = extra;
  return {
    distinctId,
    personProperties: { distinct_id: distinctId, ...personProperties },
    groups: {},
    groupProperties: {},
    groupTypeMapping: {},
    cohorts: { definitions: cohortDefinitions ?? {}, staticMembership: new Set() },
    hashKeyOverrides: {},
    now: new Date(),
    ...rest,
  };
}
