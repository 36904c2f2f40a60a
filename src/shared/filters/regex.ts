/**
 * D1 has no REGEXP function (checked: "no such function: regexp") and a Worker cannot register
 * one, so `regex` / `not_regex` filters are translated into SQLite GLOB patterns, which D1 runs
 * natively and case-sensitively, like PostHog's RE2 matching. The translation is exact for the
 * regex subset GLOB can express: literals and escapes, `.`, `.*`, `.+`, character classes
 * (`[a-z]`, `[^0-9]`, `\d`, `\w`, `\s`), `^` / `$` anchors, alternation and groups `(a|b)`,
 * `?`, `{n}` and `{n,m}` on any atom. Anything else (`x*` for x other than `.`, backreferences,
 * lookarounds, flags) is refused with a clear error rather than approximated.
 */

type Token =
  { k: "lit"; c: string } | { k: "any" } | { k: "star" } | { k: "class"; glob: string } | { k: "start" } | { k: "end" };
type Alt = Token[];

const MAX_ALTERNATIVES = 64;
/** Longer patterns are refused before parsing, which is quadratic in the length. */
const MAX_PATTERN_LENGTH = 1000;
/** D1 refuses GLOB (and LIKE) patterns longer than this many bytes, so a longer translation cannot run. */
const MAX_GLOB_BYTES = 50;
const encoder = new TextEncoder();

export class UnsupportedRegex extends Error {}

export function regexToGlobs(pattern: string): string[] {
  if (pattern.length > MAX_PATTERN_LENGTH) throw new UnsupportedRegex(`longer than ${MAX_PATTERN_LENGTH} characters`);
  const parser = new Parser(pattern);
  const alts = parser.alternation();
  if (parser.pos < pattern.length) throw new UnsupportedRegex(`unexpected "${pattern[parser.pos]}"`);
  return [...new Set(alts.map(toGlob))];
}

function toGlob(alt: Alt): string {
  const tokens = [...alt];
  const anchoredStart = tokens[0]?.k === "start";
  const anchoredEnd = tokens.at(-1)?.k === "end";
  if (anchoredStart) tokens.shift();
  if (anchoredEnd) tokens.pop();
  if (tokens.some((t) => t.k === "start" || t.k === "end")) throw new UnsupportedRegex("anchors inside the pattern");
  let out = anchoredStart ? "" : "*";
  for (const t of tokens) {
    if (t.k === "lit") out += t.c === "*" ? "[*]" : t.c === "?" ? "[?]" : t.c === "[" ? "[[]" : t.c;
    else if (t.k === "any") out += "?";
    else if (t.k === "star") out += "*";
    else if (t.k === "class") out += t.glob;
  }
  const glob = anchoredEnd ? out : `${out}*`;
  if (encoder.encode(glob).length > MAX_GLOB_BYTES)
    throw new UnsupportedRegex(`more than ${MAX_GLOB_BYTES} bytes of pattern in one alternative`);
  return glob;
}

const cross = (a: Alt[], b: Alt[]): Alt[] => {
  const out: Alt[] = [];
  for (const x of a) for (const y of b) out.push([...x, ...y]);
  if (out.length > MAX_ALTERNATIVES) throw new UnsupportedRegex("too many alternatives");
  return out;
};

const CLASS_ESCAPES: Record<string, { set: string; neg: boolean }> = {
  d: { set: "0-9", neg: false },
  D: { set: "0-9", neg: true },
  w: { set: "0-9A-Za-z_", neg: false },
  W: { set: "0-9A-Za-z_", neg: true },
  s: { set: " \t\n\r\f\v", neg: false },
  S: { set: " \t\n\r\f\v", neg: true },
};
const LITERAL_ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", f: "\f", v: "\v" };

class Parser {
  pos = 0;
  constructor(private readonly src: string) {}

  alternation(): Alt[] {
    const alts = [...this.sequence()];
    while (this.src[this.pos] === "|") {
      this.pos++;
      alts.push(...this.sequence());
    }
    if (alts.length > MAX_ALTERNATIVES) throw new UnsupportedRegex("too many alternatives");
    return alts;
  }

  private sequence(): Alt[] {
    let alts: Alt[] = [[]];
    while (this.pos < this.src.length && this.src[this.pos] !== "|" && this.src[this.pos] !== ")") {
      const atom = this.atom();
      alts = cross(alts, this.quantified(atom));
    }
    return alts;
  }

  private quantified(atom: Alt[]): Alt[] {
    const q = this.src[this.pos];
    const isDot = atom.length === 1 && atom[0].length === 1 && atom[0][0].k === "any";
    if (q === "*" || q === "+") {
      this.pos++;
      if (this.src[this.pos] === "?") this.pos++;
      if (!isDot) throw new UnsupportedRegex(`"${q}" after anything but "."`);
      return q === "*" ? [[{ k: "star" }]] : [[{ k: "any" }, { k: "star" }]];
    }
    if (q === "?") {
      this.pos++;
      return [[], ...atom];
    }
    if (q === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.pos));
      if (!m) return atom;
      this.pos += m[0].length;
      const min = Number(m[1]);
      const max = m[2] ? (m[3] ? Number(m[3]) : Infinity) : min;
      if (max === Infinity) throw new UnsupportedRegex("unbounded repetition");
      if (max > 16 || min > max) throw new UnsupportedRegex("repetition too large");
      const out: Alt[] = [];
      for (let n = min; n <= max; n++) {
        let rep: Alt[] = [[]];
        for (let i = 0; i < n; i++) rep = cross(rep, atom);
        out.push(...rep);
      }
      return out;
    }
    return atom;
  }

  private atom(): Alt[] {
    const c = this.src[this.pos++];
    if (c === "(") {
      if (this.src.startsWith("?:", this.pos)) this.pos += 2;
      else if (this.src[this.pos] === "?") throw new UnsupportedRegex("lookarounds and flags");
      const inner = this.alternation();
      if (this.src[this.pos++] !== ")") throw new UnsupportedRegex("unbalanced parenthesis");
      return inner;
    }
    if (c === "[") return [[{ k: "class", glob: this.charClass() }]];
    if (c === ".") return [[{ k: "any" }]];
    if (c === "^") return [[{ k: "start" }]];
    if (c === "$") return [[{ k: "end" }]];
    if (c === "*" || c === "+" || c === "?" || c === "{") throw new UnsupportedRegex(`nothing to repeat before "${c}"`);
    if (c === "\\") {
      const e = this.src[this.pos++];
      if (e === undefined) throw new UnsupportedRegex("trailing backslash");
      const cls = CLASS_ESCAPES[e];
      if (cls) return [[{ k: "class", glob: `[${cls.neg ? "^" : ""}${cls.set}]` }]];
      if (LITERAL_ESCAPES[e]) return [[{ k: "lit", c: LITERAL_ESCAPES[e] }]];
      if (/[A-Za-z0-9]/.test(e)) throw new UnsupportedRegex(`the escape \\${e}`);
      return [[{ k: "lit", c: e }]];
    }
    return [[{ k: "lit", c }]];
  }

  /** A regex class body up to its `]`, rewritten as a GLOB class (`]` first, `-` last). */
  private charClass(): string {
    let neg = false;
    if (this.src[this.pos] === "^") {
      neg = true;
      this.pos++;
    }
    let body = "";
    let bracket = false;
    let dash = false;
    let first = true;
    while (this.pos < this.src.length && (this.src[this.pos] !== "]" || first)) {
      first = false;
      let c = this.src[this.pos++];
      if (c === "\\") {
        const e = this.src[this.pos++];
        const cls = CLASS_ESCAPES[e];
        if (cls && !cls.neg) {
          body += cls.set;
          continue;
        }
        if (cls || (/[A-Za-z0-9]/.test(e ?? "") && !LITERAL_ESCAPES[e]))
          throw new UnsupportedRegex(`the escape \\${e} in a class`);
        c = LITERAL_ESCAPES[e] ?? e;
        if (c === "-") {
          dash = true;
          continue;
        }
      } else if (c === "[") {
        if (this.src[this.pos] === ":") throw new UnsupportedRegex("POSIX classes");
      } else if (c === "-" && (body === "" || this.src[this.pos] === "]")) {
        dash = true;
        continue;
      }
      if (c === "]") bracket = true;
      else body += c;
    }
    if (this.src[this.pos++] !== "]") throw new UnsupportedRegex("unterminated character class");
    return `[${neg ? "^" : ""}${bracket ? "]" : ""}${body}${dash ? "-" : ""}]`;
  }
}
