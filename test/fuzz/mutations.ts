/**
 * The building blocks of the schema fuzz (schema-fuzz.test.ts): a seeded PRNG, the catalog of hostile
 * values, the JSON-schema helpers that say what a field expects, and the encoders that put a hostile
 * value on the wire (JSON with raw number literals, query strings with lone surrogates).
 */

/** mulberry32: a tiny deterministic PRNG (same seed, same run). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a of a string (a PRNG seed per field). */
export function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** A number literal JSON.stringify cannot write (2**63 exactly, 9007199254740993, 1e999): spliced into the text. */
export class RawNumber {
  constructor(readonly literal: string) {}
}

export interface Mutation {
  name: string;
  value: unknown;
}

const KB100 = 100 * 1024;
const nested = (depth: number, leaf: unknown, wrap: (inner: unknown) => unknown) => {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = wrap(value);
  return value;
};

/** Every hostile value, by name. No positive small integers: a stray `1` could address a real (guarded) row. */
const MUTATIONS = {
  // size and shape
  str100k: "x".repeat(KB100),
  unicode100k: "é\u200d".repeat(KB100 / 4),
  deepArray200: nested(200, "x", (inner) => [inner]),
  deepObject200: nested(200, "x", (inner) => ({ a: inner })),
  emptyString: "",
  // wrong types
  number: -1,
  zero: 0,
  fraction: 1.5,
  emptyObject: {},
  emptyArray: [],
  objectOfJunk: { "'": "%", $where: "1" },
  arrayOfNulls: [null, null],
  null: null,
  true: true,
  false: false,
  // huge and odd numbers
  max: 1e308,
  min: -1e308,
  pow63: new RawNumber("9223372036854775808"),
  unsafeInt: new RawNumber("9007199254740993"),
  overflow: new RawNumber("1e999"),
  negZero: new RawNumber("-0"),
  nanString: "NaN",
  infinityString: "Infinity",
  bigDigits: "99999999999999999999999999",
  // odd unicode
  loneSurrogate: "\ud800",
  rtl: "\u202egnp.exe\u202c",
  zwj: "a\u200d\u200db\u200c",
  emoji: "👩‍👩‍👧‍👦🏳️‍🌈",
  nul: "a\u0000b",
  combining: "e\u0301\u0302\u0303\u0304\u0305\u0306",
  bom: "\ufeffkey",
  newlines: "a\r\nb\u2028c",
  // SQL, LIKE, GLOB, regex and template metacharacters
  sqlDrop: "'; DROP TABLE persons; --",
  sqlOr: '" OR 1=1 --',
  likeMeta: "%_\\",
  globMeta: "*[?",
  parens: "(((",
  regexRepeat: ".*{1000}",
  regexHuge: "a{99999}",
  regexRange: "[z-a]",
  jsonInString: '{"$gt": ""}',
  template: "{variables.x}${x}{{x}}",
} satisfies Record<string, unknown>;

type MutationName = keyof typeof MUTATIONS;
const ALL_MUTATIONS: MutationName[] = Object.keys(MUTATIONS) as MutationName[];
const mutation = (name: MutationName): Mutation => ({ name, value: MUTATIONS[name] });

/** A plain 64-character search string (long enough for a trigram or LIKE pattern to cost something). */
export const SEARCH64 = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";

/** The kinds of value a field expects, from its schema (or, without one, from the valid example). */
export type Kind = "string" | "number" | "boolean" | "object" | "array" | "any";

/** The mutations each field always gets, by the kind it expects. */
const CORE: Record<Kind, MutationName[]> = {
  string: ["str100k", "sqlDrop", "likeMeta", "nul", "loneSurrogate", "number"],
  number: ["max", "unsafeInt", "nanString", "str100k"],
  boolean: ["nanString", "str100k", "null"],
  object: ["deepObject200", "emptyArray", "str100k"],
  array: ["deepArray200", "emptyObject", "str100k"],
  any: ["str100k", "deepArray200", "null"],
};
/** The mutations most telling for a kind, drawn from first. */
const POOL: Record<Kind, MutationName[]> = {
  string: [
    "null",
    "nul",
    "regexRepeat",
    "regexHuge",
    "regexRange",
    "likeMeta",
    "globMeta",
    "parens",
    "emptyString",
    "emoji",
    "rtl",
    "zwj",
    "combining",
    "bom",
    "newlines",
    "sqlOr",
    "jsonInString",
    "template",
    "unicode100k",
    "emptyObject",
    "deepArray200",
    "true",
  ],
  number: ["min", "pow63", "overflow", "negZero", "number", "zero", "fraction", "infinityString", "bigDigits", "null"],
  boolean: ["number", "zero", "emptyArray", "emptyString", "true", "false"],
  object: ["null", "deepArray200", "number", "emptyString", "objectOfJunk", "emptyObject", "arrayOfNulls"],
  array: ["null", "deepObject200", "number", "arrayOfNulls", "emptyString", "emptyArray", "objectOfJunk"],
  any: ["deepObject200", "number", "emptyObject", "loneSurrogate", "max", "sqlDrop", "pow63", "nul"],
};

/**
 * The `count` mutations one field receives: the core ones for its kind, then draws (with `random`)
 * from the kind's pool, one in four from the whole catalog.
 */
export function mutationsFor(kind: Kind, random: () => number, count: number): Mutation[] {
  const chosen = new Set<MutationName>(CORE[kind]);
  const pool = POOL[kind].filter((m) => !chosen.has(m));
  const rest = ALL_MUTATIONS.filter((m) => !chosen.has(m) && !pool.includes(m));
  while (chosen.size < count && (pool.length || rest.length)) {
    const from = (random() < 0.25 && rest.length) || !pool.length ? rest : pool;
    chosen.add(from.splice(Math.floor(random() * from.length), 1)[0]);
  }
  return [...chosen].map(mutation);
}

/** Hostile path segments, already URL-encoded as they go in the path. */
export const PATH_MUTATIONS: Mutation[] = [
  { name: "zero", value: "0" },
  { name: "negative", value: "-1" },
  { name: "bigDigits", value: "99999999999999999999" },
  { name: "exponent", value: "1e308" },
  { name: "nanString", value: "NaN" },
  { name: "fraction", value: "1.5" },
  { name: "uuidZero", value: "00000000-0000-0000-0000-000000000000" },
  { name: "sqlDrop", value: encodeURIComponent(MUTATIONS.sqlDrop) },
  { name: "likeGlob", value: encodeURIComponent("%_*[?") },
  { name: "nul", value: "a%00b" },
  { name: "loneSurrogate", value: "%ED%A0%80" },
  { name: "badPercent", value: "%E0%A4%A" },
  { name: "emoji", value: encodeURIComponent(MUTATIONS.emoji) },
  { name: "dotdot", value: "..%2F..%2Fetc" },
  { name: "current", value: "@current" },
  { name: "str100k", value: "x".repeat(KB100) },
];

/** Hostile member names, added to each object of a valid body (property maps, filters, variables). */
export const KEY_MUTATIONS: Mutation[] = [
  { name: "key str100k", value: MUTATIONS.str100k },
  { name: "key nul", value: MUTATIONS.nul },
  { name: "key likeMeta", value: MUTATIONS.likeMeta },
  { name: "key sqlDrop", value: MUTATIONS.sqlDrop },
  { name: "key loneSurrogate", value: MUTATIONS.loneSurrogate },
  { name: "key __proto__", value: "__proto__" },
  { name: "key empty", value: "" },
];

/** Query values sent byte for byte (not encoded): malformed percent-escapes. */
export class RawQuery {
  constructor(readonly text: string) {}
}
export const RAW_QUERY_MUTATIONS: Mutation[] = [
  { name: "badPercent", value: new RawQuery("%E0%A4%A") },
  { name: "encodedLoneSurrogate", value: new RawQuery("%ED%A0%80") },
];

// ---- JSON schema helpers ----

export type Schema = Record<string, any>;

/** Follows `$ref` (into components) and the first `anyOf`/`oneOf` branch that is not null. */
export function resolve(doc: Schema, schema: Schema | undefined): Schema | undefined {
  let current = schema;
  for (let i = 0; current && i < 20; i++) {
    if (typeof current.$ref === "string") {
      const parts = current.$ref.replace(/^#\//, "").split("/");
      current = parts.reduce<any>((node, part) => node?.[part], doc);
      continue;
    }
    const branches = current.anyOf ?? current.oneOf;
    if (Array.isArray(branches) && !current.type) {
      current = branches.find((b: Schema) => b.type !== "null") ?? branches[0];
      continue;
    }
    return current;
  }
  return current;
}

export function kindOfSchema(schema: Schema | undefined): Kind {
  const type = Array.isArray(schema?.type) ? schema.type.find((t: string) => t !== "null") : schema?.type;
  if (type === "integer" || type === "number") return "number";
  if (type === "string" || type === "boolean" || type === "object" || type === "array") return type;
  return "any";
}

export function kindOfValue(value: unknown): Kind {
  if (typeof value === "string") return "string";
  if (typeof value === "number") return "number";
  if (typeof value === "boolean") return "boolean";
  if (Array.isArray(value)) return "array";
  if (value && typeof value === "object") return "object";
  return "any";
}

/** The schema of `key` inside an object or array schema. */
export function childSchema(doc: Schema, schema: Schema | undefined, key: string | number): Schema | undefined {
  const s = resolve(doc, schema);
  if (!s) return undefined;
  if (typeof key === "number") return resolve(doc, s.items);
  const prop = s.properties?.[key];
  if (prop) return resolve(doc, prop);
  return typeof s.additionalProperties === "object" ? resolve(doc, s.additionalProperties) : undefined;
}

// ---- JSON paths and encoders ----

export type JsonPath = (string | number)[];

export const pathLabel = (path: JsonPath) =>
  path.length === 0 ? "(root)" : path.map((p, i) => (typeof p === "number" ? `[${p}]` : i ? `.${p}` : p)).join("");

/** Every path of a JSON value: the value itself, each member and element, recursively. */
export function jsonPaths(value: unknown, prefix: JsonPath = []): JsonPath[] {
  const out: JsonPath[] = [prefix];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...jsonPaths(v, [...prefix, i])));
  else if (value && typeof value === "object")
    for (const [k, v] of Object.entries(value)) out.push(...jsonPaths(v, [...prefix, k]));
  return out;
}

export function getAt(value: unknown, path: JsonPath): unknown {
  return path.reduce<any>((node, key) => node?.[key], value);
}

/**
 * A copy of `value` with the member at `path` replaced (or added) by `replacement`; an own
 * property even when its name is `__proto__`.
 */
export function setAt(value: unknown, path: JsonPath, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
  const member = setAt(Object.hasOwn(copy, head) ? copy[head] : undefined, rest, replacement);
  Object.defineProperty(copy, head, { value: member, enumerable: true, writable: true, configurable: true });
  return copy;
}

/** JSON text of a value that may hold `RawNumber`s (written as their literal). */
export function toJson(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, v) => {
    if (v instanceof RawNumber) {
      raws.push(v.literal);
      return `__raw_number_${raws.length - 1}__`;
    }
    return v;
  });
  return raws.length ? text.replace(/"__raw_number_(\d+)__"/g, (_m, i) => raws[Number(i)]) : text;
}

/** What a query parameter's value becomes as text: strings as they are, anything else as JSON. */
function queryText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value instanceof RawNumber) return value.literal;
  return toJson(value);
}

/** encodeURIComponent, except that lone surrogates (which make it throw) go out as their WTF-8 bytes. */
function encodeQueryValue(value: unknown): string {
  if (value instanceof RawQuery) return value.text;
  const text = queryText(value);
  if (!/[\ud800-\udfff]/.test(text)) return encodeURIComponent(text);
  let out = "";
  for (const ch of text) {
    const unit = ch.charCodeAt(0);
    if (ch.length === 1 && unit >= 0xd800 && unit <= 0xdfff) {
      out += [0xed, 0xa0 | ((unit >> 6) & 0x1f), 0x80 | (unit & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join("");
    } else out += encodeURIComponent(ch);
  }
  return out;
}

export function queryString(params: Record<string, unknown>): string {
  const parts = Object.entries(params)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeQueryValue(v)}`);
  return parts.length ? `?${parts.join("&")}` : "";
}
