import { parseFunnel, parseFunnelStep, parseStepBreakdown, type ProjectContext, stepCondition } from "./funnel-input";
import { breakdownCondition, funnelCtes } from "./funnel-sql";
import { validationError } from "../../lib/errors";
import { type Input, int, json, str } from "./params";
import { actorsPage, type ActorsResponse, type PageRequest } from "./response";
import { Params, runAll } from "./sql";

export const DEFAULT_ACTORS_LIMIT = 100;
export const MAX_ACTORS_LIMIT = 10_000;

export function pageOf(input: Input, limitParam = "limit", offsetParam = "offset"): PageRequest {
  return {
    limit: int(input, limitParam, { min: 1, max: MAX_ACTORS_LIMIT }) ?? DEFAULT_ACTORS_LIMIT,
    offset: int(input, offsetParam, { min: 0 }) ?? 0,
    limitParam,
    offsetParam,
  };
}

/**
 * `funnel_custom_steps`: persons whose furthest step is one of these. As in PostHog, a non-empty
 * list wins over `funnel_step`; an empty one leaves the choice to `funnel_step`.
 */
function customSteps(input: Input, steps: number): number[] | undefined {
  const raw = json(input, "funnel_custom_steps");
  if (raw === undefined || (Array.isArray(raw) && !raw.length)) return undefined;
  if (!Array.isArray(raw) || raw.some((n) => !Number.isInteger(n) || n < 1 || n > steps)) {
    throw validationError(
      `funnel_custom_steps must be a JSON list of step numbers between 1 and ${steps}.`,
      "funnel_custom_steps",
    );
  }
  return raw as number[];
}

/** Funnel actors: the persons of one funnel bucket (`funnel_step`, `funnel_step_breakdown`), one page. */
export async function funnelActors(
  d1: D1Database,
  ctx: ProjectContext,
  input: Input,
  requestUrl: string,
): Promise<ActorsResponse> {
  const spec = await parseFunnel(input, ctx);
  if (str(input, "funnel_viz_type") === "trends") {
    throw validationError("Funnel trends drill-downs (funnel_viz_type=trends) are not supported.", "funnel_viz_type");
  }
  const custom = customSteps(input, spec.steps.length);
  const step = custom ? undefined : parseFunnelStep(input, spec.steps.length);
  const breakdownValue = parseStepBreakdown(input);
  const page = pageOf(input);
  const params = new Params();
  const ctes = funnelCtes(spec, params);
  const conditions = [custom ? `steps IN (${custom.join(", ")})` : stepCondition(step!)];
  if (breakdownValue !== undefined && spec.breakdown)
    conditions.push(breakdownCondition(spec.breakdown, breakdownValue, params));
  const sql = `${ctes}
    SELECT pid FROM funnel WHERE ${conditions.join(" AND ")}
    ORDER BY pid LIMIT ${params.bind(page.limit + 1)} OFFSET ${params.bind(page.offset)}`;
  const rows = await runAll<{ pid: number }>(d1, sql, params);
  return actorsPage(
    d1,
    ctx.projectId,
    rows.map((r) => r.pid),
    page,
    requestUrl,
    { funnel: true },
  );
}
