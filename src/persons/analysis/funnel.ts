import { validationError } from "../../lib/errors";
import type { AnalysisContext } from "./context";
import { parseFunnel, parseFunnelStep, parseStepBreakdown } from "./funnel-input";
import { type Input, json, str } from "./params";
import { type ActorsResponse, actorsPage, pageOf, rowsOf } from "./response";

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
export async function funnelActors(ctx: AnalysisContext, input: Input, requestUrl: string): Promise<ActorsResponse> {
  const funnel = await parseFunnel(input, ctx);
  if (str(input, "funnel_viz_type") === "trends") {
    throw validationError("Funnel trends drill-downs (funnel_viz_type=trends) are not supported.", "funnel_viz_type");
  }
  const custom = customSteps(input, funnel.steps.length);
  const bucket = custom ? { customSteps: custom } : { step: parseFunnelStep(input, funnel.steps.length) };
  const breakdownValue = parseStepBreakdown(input);
  const page = pageOf(input);
  const ids = await ctx.store.funnelActors({ funnel, bucket, breakdownValue, rows: rowsOf(page) });
  return actorsPage(ctx.db, ctx.projectId, ids, page, requestUrl, { funnel: true });
}
