/**
 * Semantic versions as the server compares them (flag-eval.md §4.5): a leading `v` dropped,
 * missing parts padded with 0, leading zeros stripped, pre-release kept and ordered per semver
 * (1.2.3-alpha < 1.2.3), build metadata ignored.
 */

export interface Version {
  major: number;
  minor: number;
  patch: number;
  pre: string[];
}

const CORE = /^\d+$/;

export function parseVersion(raw: unknown): Version | undefined {
  if (typeof raw !== "string" && typeof raw !== "number") return undefined;
  let text = String(raw).trim();
  if (/^[vV]/.test(text)) text = text.slice(1);
  text = text.split("+")[0];
  const dash = text.indexOf("-");
  const core = dash >= 0 ? text.slice(0, dash) : text;
  const pre = dash >= 0 ? text.slice(dash + 1).split(".") : [];
  if (pre.some((p) => !/^[0-9A-Za-z-]+$/.test(p))) return undefined;
  const parts = core.split(".");
  if (parts.length > 3 || parts.some((p) => !CORE.test(p))) return undefined;
  while (parts.length < 3) parts.push("0");
  const [major, minor, patch] = parts.map(Number);
  return { major, minor, patch, pre };
}

function comparePre(a: string[], b: string[]): number {
  if (!a.length || !b.length) return a.length ? -1 : b.length ? 1 : 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i],
      y = b[i];
    const xn = /^\d+$/.test(x),
      yn = /^\d+$/.test(y);
    if (xn && yn) {
      if (Number(x) !== Number(y)) return Number(x) < Number(y) ? -1 : 1;
    } else if (xn !== yn) return xn ? -1 : 1;
    else if (x !== y) return x < y ? -1 : 1;
  }
  return Math.sign(a.length - b.length);
}

export function compareVersions(a: Version, b: Version): number {
  return (
    Math.sign(a.major - b.major) ||
    Math.sign(a.minor - b.minor) ||
    Math.sign(a.patch - b.patch) ||
    comparePre(a.pre, b.pre)
  );
}

const v = (major: number, minor: number, patch: number): Version => ({ major, minor, patch, pre: [] });

/** The half-open range `[low, high)` of a tilde, caret or wildcard filter value. */
export function versionRange(operator: "semver_tilde" | "semver_caret" | "semver_wildcard", raw: unknown) {
  if (operator === "semver_wildcard") {
    if (typeof raw !== "string") return undefined;
    const parts = raw.trim().replace(/^[vV]/, "").split(".");
    const fixed = parts.filter((p) => p !== "*" && p.toLowerCase() !== "x");
    if (!fixed.length || fixed.length > 2 || fixed.some((p) => !CORE.test(p))) return undefined;
    const [major, minor] = fixed.map(Number);
    return fixed.length === 1
      ? { low: v(major, 0, 0), high: v(major + 1, 0, 0) }
      : { low: v(major, minor, 0), high: v(major, minor + 1, 0) };
  }
  const low = parseVersion(raw);
  if (!low) return undefined;
  if (operator === "semver_tilde") return { low, high: v(low.major, low.minor + 1, 0) };
  if (low.major > 0) return { low, high: v(low.major + 1, 0, 0) };
  if (low.minor > 0) return { low, high: v(0, low.minor + 1, 0) };
  return { low, high: v(0, 0, low.patch + 1) };
}
