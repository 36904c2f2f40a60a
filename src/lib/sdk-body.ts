import { gunzipSync } from "node:zlib";
import { payloadTooLarge, validationError } from "./errors";

/**
 * The one decoder for bodies PostHog SDKs send to capture, `/flags` and `/decide`, whatever the
 * client: server SDKs post JSON (posthog-python may gzip it with `Content-Encoding: gzip`);
 * posthog-js posts `text/plain` gzip recognised only by its magic bytes (no header, no query
 * parameter); posthog-js 1.160 adds `?compression=gzip-js`, or posts a form whose `data` field is
 * base64 of JSON (`?compression=base64`). The bytes decide (gzip magic, JSON, base64): the
 * `compression` parameter and the content type are hints that clients do not send consistently.
 */
export interface SdkBody {
  /** The decoded JSON value; undefined when the request had no body. */
  payload: unknown;
  /** The form fields when the body was form-encoded (some SDKs put the token or `compression` there). */
  form: URLSearchParams | null;
}

export interface SdkBodyHints {
  contentType?: string | null;
  contentEncoding?: string | null;
  /**
   * The most bytes a body may decode to. A few hundred kilobytes of gzip can expand to gigabytes,
   * far past a Worker's memory, so decompression stops there with a 413.
   */
  maxDecodedBytes: number;
}

const utf8 = new TextDecoder();

const malformed = (what: string) => validationError(`Malformed request data: ${what}.`, null, "invalid_payload");

export function decodeSdkBody(body: ArrayBuffer, hints: SdkBodyHints): SdkBody {
  const limit = hints.maxDecodedBytes;
  let bytes: Uint8Array = new Uint8Array(body);
  if (!bytes.length) return { payload: undefined, form: null };
  if (isGzip(bytes) || /gzip/i.test(hints.contentEncoding ?? "")) bytes = gunzip(bytes, limit);

  const text = utf8.decode(bytes);
  if (/x-www-form-urlencoded/i.test(hints.contentType ?? "") || (/^data=/.test(text) && !looksLikeJson(text))) {
    const form = new URLSearchParams(text);
    const data = form.get("data");
    if (data === null) throw validationError("The form body has no `data` field.", "data", "invalid_payload");
    return { payload: decodeText(data, limit), form };
  }
  return { payload: decodeText(text, limit), form: null };
}

/** JSON text, or base64 (standard or URL-safe) of JSON or of gzip-compressed JSON. */
function decodeText(text: string, limit: number): unknown {
  const trimmed = text.trim();
  if (looksLikeJson(trimmed)) return parseJson(trimmed);
  let raw = fromBase64(trimmed);
  if (!raw) {
    // Neither JSON-looking nor base64: let JSON.parse accept what it can (`42`, `"x"`) or refuse it.
    return parseJson(trimmed);
  }
  if (isGzip(raw)) raw = gunzip(raw, limit);
  return parseJson(utf8.decode(raw));
}

const looksLikeJson = (text: string) => /^\s*[{["]/.test(text);

function fromBase64(text: string): Uint8Array | undefined {
  // A form value may carry `+` decoded as a space; URL-safe base64 uses `-` and `_`.
  const normalized = text.replace(/ /g, "+").replace(/-/g, "+").replace(/_/g, "/");
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(normalized)) return undefined;
  try {
    return Uint8Array.from(atob(normalized), (ch) => ch.charCodeAt(0));
  } catch {
    return undefined;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw malformed("the body is not valid JSON");
  }
}

const isGzip = (bytes: Uint8Array) => bytes.length > 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;

/**
 * Decompresses, refusing (413) output past `limit` bytes. Synchronous zlib (workerd's node:zlib)
 * costs a fraction of a DecompressionStream's setup for the kilobyte bodies SDKs send.
 */
function gunzip(bytes: Uint8Array, limit: number): Uint8Array {
  try {
    return gunzipSync(bytes, { maxOutputLength: limit });
  } catch (err) {
    if (err instanceof RangeError || (err as { code?: string }).code === "ERR_BUFFER_TOO_LARGE")
      throw payloadTooLarge(limit);
    throw malformed("the body could not be decompressed");
  }
}
