/**
 * A synchronous SHA-1 for the short strings flag bucketing hashes. In workerd every
 * `crypto.subtle.digest` call costs a few microseconds of overhead (design.md §8) and is async;
 * evaluating 50 flags for one request needs up to ~150 digests, so a plain-JS SHA-1 over a
 * reused buffer is both faster and keeps the evaluator synchronous. Verified against
 * crypto.subtle in test/flags/evaluator.test.ts.
 */

const encoder = new TextEncoder();
const words = new Int32Array(80);
let block = new Uint8Array(128);

const rotl = (x: number, n: number) => (x << n) | (x >>> (32 - n));

/** Writes utf8(input) at the start of `block` (sized for it) and returns its byte length. */
function load(input: string): number {
  // Flag keys and distinct ids are nearly always ASCII: copy char codes without allocating.
  let ascii = input.length + 9 <= block.length;
  for (let i = 0; ascii && i < input.length; i++) if (input.charCodeAt(i) > 0x7f) ascii = false;
  if (ascii) {
    const padded = (((input.length + 8) >> 6) + 1) << 6;
    block.fill(0, input.length, padded);
    for (let i = 0; i < input.length; i++) block[i] = input.charCodeAt(i);
    return input.length;
  }
  const bytes = encoder.encode(input);
  const padded = (((bytes.length + 8) >> 6) + 1) << 6;
  if (block.length < padded) block = new Uint8Array(padded);
  else block.fill(0, 0, padded);
  block.set(bytes);
  return bytes.length;
}

/** The five 32-bit state words of SHA-1(utf8(input)). */
export function sha1Words(input: string): [number, number, number, number, number] {
  const length = load(input);
  const padded = (((length + 8) >> 6) + 1) << 6;
  block[length] = 0x80;
  const bits = length * 8;
  block[padded - 4] = bits >>> 24;
  block[padded - 3] = (bits >>> 16) & 0xff;
  block[padded - 2] = (bits >>> 8) & 0xff;
  block[padded - 1] = bits & 0xff;
  block[padded - 5] = Math.floor(bits / 0x100000000) & 0xff;

  let h0 = 0x67452301,
    h1 = 0xefcdab89,
    h2 = 0x98badcfe,
    h3 = 0x10325476,
    h4 = 0xc3d2e1f0;
  for (let offset = 0; offset < padded; offset += 64) {
    for (let i = 0; i < 16; i++) {
      const p = offset + i * 4;
      words[i] = (block[p] << 24) | (block[p + 1] << 16) | (block[p + 2] << 8) | block[p + 3];
    }
    for (let i = 16; i < 80; i++) words[i] = rotl(words[i - 3] ^ words[i - 8] ^ words[i - 14] ^ words[i - 16], 1);
    let a = h0,
      b = h1,
      c = h2,
      d = h3,
      e = h4;
    // The four round functions in separate loops: no per-round branch in the hot path.
    for (let i = 0; i < 20; i++) {
      const t = (rotl(a, 5) + ((b & c) | (~b & d)) + e + 0x5a827999 + words[i]) | 0;
      e = d;
      d = c;
      c = rotl(b, 30);
      b = a;
      a = t;
    }
    for (let i = 20; i < 40; i++) {
      const t = (rotl(a, 5) + (b ^ c ^ d) + e + 0x6ed9eba1 + words[i]) | 0;
      e = d;
      d = c;
      c = rotl(b, 30);
      b = a;
      a = t;
    }
    for (let i = 40; i < 60; i++) {
      const t = (rotl(a, 5) + ((b & c) | (b & d) | (c & d)) + e + 0x8f1bbcdc + words[i]) | 0;
      e = d;
      d = c;
      c = rotl(b, 30);
      b = a;
      a = t;
    }
    for (let i = 60; i < 80; i++) {
      const t = (rotl(a, 5) + (b ^ c ^ d) + e + 0xca62c1d6 + words[i]) | 0;
      e = d;
      d = c;
      c = rotl(b, 30);
      b = a;
      a = t;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
  }
  return [h0 >>> 0, h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

export function sha1Hex(input: string): string {
  return sha1Words(input)
    .map((w) => w.toString(16).padStart(8, "0"))
    .join("");
}

const W = new Int32Array(80);

/**
 * The first 60 bits of SHA-1(input) (the first word and the top 28 bits of the second) as one
 * number, for bucketing. Inputs that are ASCII and fit one block (<= 55 chars: nearly every
 * `key.distinct_id`) are hashed with the message words built straight from char codes and no
 * allocation; anything else goes through sha1Words. `h0 * 2^28` is exact, and the single addition
 * rounds the 60-bit integer to float64 once, as `Number(BigInt("0x" + hex15))` does.
 */
export function sha1Top60(input: string): number {
  const n = input.length;
  if (n > 55) return top60(sha1Words(input));
  for (let i = 0; i < 16; i++) W[i] = 0;
  for (let i = 0; i < n; i++) {
    const code = input.charCodeAt(i);
    if (code > 0x7f) return top60(sha1Words(input));
    W[i >> 2] |= code << (24 - ((i & 3) << 3));
  }
  W[n >> 2] |= 0x80 << (24 - ((n & 3) << 3));
  W[15] = n * 8;
  for (let i = 16; i < 80; i++) {
    const x = W[i - 3] ^ W[i - 8] ^ W[i - 14] ^ W[i - 16];
    W[i] = (x << 1) | (x >>> 31);
  }
  let a = 0x67452301,
    b = 0xefcdab89 | 0,
    c = 0x98badcfe | 0,
    d = 0x10325476,
    e = 0xc3d2e1f0 | 0;
  for (let i = 0; i < 20; i++) {
    const t = (((a << 5) | (a >>> 27)) + ((b & c) | (~b & d)) + e + 0x5a827999 + W[i]) | 0;
    e = d;
    d = c;
    c = (b << 30) | (b >>> 2);
    b = a;
    a = t;
  }
  for (let i = 20; i < 40; i++) {
    const t = (((a << 5) | (a >>> 27)) + (b ^ c ^ d) + e + 0x6ed9eba1 + W[i]) | 0;
    e = d;
    d = c;
    c = (b << 30) | (b >>> 2);
    b = a;
    a = t;
  }
  for (let i = 40; i < 60; i++) {
    const t = (((a << 5) | (a >>> 27)) + ((b & c) | (b & d) | (c & d)) + e + 0x8f1bbcdc + W[i]) | 0;
    e = d;
    d = c;
    c = (b << 30) | (b >>> 2);
    b = a;
    a = t;
  }
  for (let i = 60; i < 80; i++) {
    const t = (((a << 5) | (a >>> 27)) + (b ^ c ^ d) + e + 0xca62c1d6 + W[i]) | 0;
    e = d;
    d = c;
    c = (b << 30) | (b >>> 2);
    b = a;
    a = t;
  }
  return ((0x67452301 + a) >>> 0) * 0x10000000 + ((((0xefcdab89 | 0) + b) >>> 0) >>> 4);
}

const top60 = ([h0, h1]: number[]) => h0 * 0x10000000 + (h1 >>> 4);
