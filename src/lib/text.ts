/**
 * Text as it will be stored: a lone UTF-16 surrogate (JSON allows `"\ud800"`) becomes U+FFFD, as
 * encoding the text to UTF-8 makes it. Text that is looked up again (a distinct id) or sent on (a
 * ClickHouse parameter, which must be valid UTF-8 in a URL) must be this text from the start.
 */
export const wellFormed = (text: string) =>
  text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");

const encoder = new TextEncoder();

/**
 * Whether `text` takes more than `max` bytes in UTF-8. A UTF-16 unit is at most 3 bytes, so most
 * texts are answered from their length, without encoding them.
 */
export const longerThanBytes = (text: string, max: number) =>
  text.length * 3 > max && encoder.encode(text).length > max;

/** At most 100 characters of user text, for quoting it in an error message. */
export const excerpt = (text: string) => (text.length > 100 ? `${text.slice(0, 100)}…` : text);
