/**
 * A small seeded PRNG (sfc32, seeded through splitmix32) so every fuzz input
 * is a pure function of (seed, index): any input can be regenerated alone.
 */

function splitmix32(state: number): () => number {
  return () => {
    state = (state + 0x9e3779b9) | 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** Deterministic random choices; the same seed always gives the same sequence. */
export class Prng {
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  constructor(...seeds: number[]) {
    let mixed = 0x2545f491;
    for (const seed of seeds) mixed = splitmix32((mixed ^ Math.imul(seed | 0, 0x27d4eb2d) ^ Math.floor(seed / 2 ** 32)) | 0)();
    const next = splitmix32(mixed);
    this.#a = next();
    this.#b = next();
    this.#c = next();
    this.#d = next();
    for (let i = 0; i < 12; i++) this.uint32();
  }

  /** A uniform 32-bit unsigned integer. */
  uint32(): number {
    const t = (((this.#a + this.#b) | 0) + this.#d) | 0;
    this.#d = (this.#d + 1) | 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) | 0;
    this.#c = (this.#c << 21) | (this.#c >>> 11);
    this.#c = (this.#c + t) | 0;
    return t >>> 0;
  }

  /** A float in [0, 1). */
  float(): number {
    return this.uint32() / 2 ** 32;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** An integer in [min, max]. */
  range(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.float() < p;
  }

  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }

  /** Picks by weight: `[[weight, value], …]`. */
  weighted<T>(entries: readonly (readonly [number, T])[]): T {
    let total = 0;
    for (const [w] of entries) total += w;
    let r = this.float() * total;
    for (const [w, value] of entries) {
      r -= w;
      if (r < 0) return value;
    }
    return entries[entries.length - 1]![1];
  }

  /** `n` random bytes. */
  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = this.uint32() & 0xff;
    return out;
  }
}
