export const nowIso = () => new Date().toISOString();

/** True when `zone` is an IANA time zone the runtime knows. */
export function isValidTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
