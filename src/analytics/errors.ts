import { ApiError } from "../lib/errors";

/** A question too large to answer (too many periods, parameters or terms): a 400 naming what to reduce. */
export const queryTooComplex = (detail: string) => new ApiError(400, "validation_error", "query_too_complex", detail);
