import { validationError } from "../lib/errors";

/**
 * Turns a capture request body into JSON the way PostHog's capture accepts it:
 * plain JSON, gzip (`Content-Encoding: gzip`, `?compression=gzip-js`, or simply gzip magic bytes),
 * and the form-encoded `data=` variant whose value is JSON or base64 of JSON (posthog-js' fallback).
 */
export async function decodeCaptureBody(request: Request): Promise<{ payload: unknown; form: URLSearchParams | null }> {
  const url = new URL(request.url);
  const compression = url.searchParams.get("compression");
  let bytes: Uint8Array<ArrayBuffer> = new Uint8Array(await request.arrayBuffer());
  if (!bytes.length) throw validationError("No data found. Make sure to use a POST request when sending the payload in the body of the request.", null, "no_data");

  const encoding = request.headers.get("content-encoding")?.toLowerCase() ?? "";
  if (encoding.includes("gzip") || compression === "gzip-js" || compression === "gzip" || isGzip(bytes)) bytes = await gunzip(bytes);

  const contentType = request.headers.get("content-type")?.toLowerCase() ?? "";
  const text = new TextDecoder().decode(bytes);
  if (contentType.startsWith("application/x-www-form-urlencoded")) {
    const form = new URLSearchParams(text);
    const data = form.get("data");
    if (data === null) throw validationError("The form body has no `data` field.", "data");
    return { payload: await parseDataField(data, form.get("compression") ?? compression), form };
  }
  return { payload: parseJson(text), form: null };
}

async function parseDataField(data: string, compression: string | null): Promise<unknown> {
  const trimmed = data.trim();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) return parseJson(trimmed);
  let raw: Uint8Array<ArrayBuffer>;
  try {
    raw = Uint8Array.from(atob(trimmed.replace(/-/g, "+").replace(/_/g, "/")), (ch) => ch.charCodeAt(0));
  } catch {
    throw validationError("The `data` field is neither JSON nor base64.", "data");
  }
  if (compression === "gzip-js" || isGzip(raw)) raw = await gunzip(raw);
  return parseJson(new TextDecoder().decode(raw));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw validationError("Malformed request data: the body is not valid JSON.", null, "invalid_payload");
  }
}

const isGzip = (bytes: Uint8Array) => bytes.length > 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;

async function gunzip(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  try {
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  } catch {
    throw validationError("Malformed request data: the body could not be decompressed.", null, "invalid_payload");
  }
}
