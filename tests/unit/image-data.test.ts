/**
 * The base64 check of prompt images: one linear pass that takes megabytes
 * in constant stack, and, in a seeded fuzz of the spellings people and
 * attackers send (white space, padding in the middle, the url-safe alphabet,
 * lengths that are not a multiple of 4, stray characters), the same verdict
 * as the reference grammar, with every accepted string decoding to the length
 * its padding says. Set ACP_EDGE_BASE64_SEED to replay a seed.
 */
import { describe, expect, test } from "bun:test";
import { isBase64 } from "../../src/acp/params/image-data.ts";
import { prng } from "../fuzz/session-file-mutations.ts";

/** The grammar: standard alphabet, padded, nothing else (fine as a regular expression on short strings). */
const REFERENCE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const SEED = Number(process.env.ACP_EDGE_BASE64_SEED ?? 20261206);

/** Decoded bytes of an accepted string: what its length and padding promise. */
function promisedBytes(data: string): number {
  const pad = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return (data.length / 4) * 3 - pad;
}

describe("base64 of prompt images", () => {
  test("megabytes are checked in one pass: 12 MiB valid, and invalid at the very end", () => {
    const big = "QUFB".repeat(3 * 1024 * 1024);
    expect(isBase64(big)).toBe(true);
    expect(isBase64(`${big.slice(0, -4)}QUE=`)).toBe(true);
    expect(isBase64(`${big.slice(0, -4)}QUE!`)).toBe(false);
    expect(isBase64(`${big.slice(0, -4)}Q===`)).toBe(false);
  });

  test("hostile spellings", () => {
    for (const bad of ["QUFB QUFB", "QUFB\nQUFB", "QU=B", "QUFB=QUF", "QU-_", "QUF", "QUFBQ", "====", "Q===", "QUFB\u0000", "QUFBQUF\u00e9", "ＱＵＦＢ"]) {
      expect([bad, isBase64(bad)]).toEqual([bad, false]);
      expect(REFERENCE.test(bad)).toBe(false);
    }
    for (const good of ["", "QUFB", "QUE=", "QQ==", "+/+/"]) expect([good, isBase64(good)]).toEqual([good, true]);
  });

  test(`seeded fuzz (seed ${SEED}): the same verdict as the reference grammar; accepted strings decode to their promised length`, () => {
    const random = prng(SEED);
    const int = (n: number) => Math.floor(random() * n);
    const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
    const strays = [" ", "\n", "\r", "\t", "=", "-", "_", "!", ".", "\u0000", "é", "\u202e", "A", "+", "/"];
    let accepted = 0;
    for (let round = 0; round < 20_000; round++) {
      const bytes = Uint8Array.from({ length: int(40) }, () => int(256));
      let data = Buffer.from(bytes).toString("base64");
      for (let edits = int(3); edits > 0 && data.length > 0; edits--) {
        const at = int(data.length + 1);
        switch (int(5)) {
          case 0: // insert a stray character anywhere
            data = data.slice(0, at) + pick(strays) + data.slice(at);
            break;
          case 1: // drop one character (length mod 4)
            data = data.slice(0, at) + data.slice(at + 1);
            break;
          case 2: // the url-safe alphabet
            data = data.replace(/\+/g, "-").replace(/\//g, "_");
            break;
          case 3: // padding removed, or moved to the middle
            data = int(2) === 0 ? data.replace(/=+$/, "") : data.slice(0, at) + "==" + data.slice(at).replace(/=+$/, "");
            break;
          default: // replace one character by a random one of the alphabet
            data = data.slice(0, at) + pick(["A", "z", "0", "+", "/"]) + data.slice(at + 1);
        }
      }
      const expected = REFERENCE.test(data);
      if (isBase64(data) !== expected) throw new Error(`seed ${SEED}, round ${round}: ${JSON.stringify(data)} should be ${expected ? "accepted" : "refused"}`);
      if (expected) {
        accepted++;
        expect(atob(data).length).toBe(promisedBytes(data));
      }
    }
    // Both verdicts were exercised.
    expect(accepted).toBeGreaterThan(1000);
    expect(accepted).toBeLessThan(19_000);
  });
});
