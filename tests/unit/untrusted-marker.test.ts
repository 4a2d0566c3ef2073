/**
 * The fetch tool's marker tag cannot be closed or reopened by page text in
 * any spelling, and the check stays a pass over the text however the
 * blanks and slashes before the words are arranged.
 */
import { expect, test } from "bun:test";
import { neutraliseMarkers } from "../../src/tools/web/untrusted-marker.ts";
import { prng } from "../fuzz/session-file-mutations.ts";

const SEED = Number(process.env.ACP_EDGE_MARKER_SEED ?? 20261206);
const LEADS = ["<", "\uff1c", "\ufe64"];
const BEFORE = [" ", "\t", "\n", "/", "\\", "\u200b", "\u00ad", "\ufeff", "\u2060"];
const BETWEEN = ["-", "_", " ", "", "\u200b", "\n"];

/** Whether a reader could still find an opening or closing marker tag in `text`. */
function readsAsMarker(text: string): boolean {
  const plain = text.replace(/[\u00ad\u200b-\u200f\u2060\ufeff]/g, "").replace(/[\uff1c\ufe64]/g, "<").toLowerCase();
  return /<[\s/\\]*untrusted[\s_-]*web[\s_-]*content/.test(plain);
}

test(`seeded spellings (seed ${SEED}): every opening or closing marker loses its <, the words around it stay`, () => {
  const next = prng(SEED);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  for (let i = 0; i < 2000; i++) {
    const run = (list: readonly string[], max: number) => Array.from({ length: Math.floor(next() * max) }, () => pick(list)).join("");
    const word = (w: string) => [...w].map((c) => (next() < 0.4 ? c.toUpperCase() : c)).join("");
    const tag = `${pick(LEADS)}${run(BEFORE, 5)}${word("untrusted")}${run(BETWEEN, 3)}${word("web")}${run(BETWEEN, 3)}${word("content")}>`;
    const text = `before ${tag} after`;
    const out = neutraliseMarkers(text);
    expect({ text, marker: readsAsMarker(out) }).toEqual({ text, marker: false });
    expect(out.startsWith("before ") && out.endsWith(" after")).toBe(true);
  }
});

test("ordinary text and other tags pass unchanged", () => {
  for (const text of ["a < b and c > d", "<div>untrusted</div> web content", "</untrusted-web>", "<untrustedweb", "<<<<"]) {
    expect(neutraliseMarkers(text)).toBe(text);
  }
});

test("a < before 40,000 blanks and slashes, then the closing tag, is still neutralised", () => {
  for (const filler of [" ", " /", "/ ", "\u200b ", "\\\t"]) {
    const text = `<${filler.repeat(40_000 / filler.length)}/untrusted-web-content>`;
    expect(readsAsMarker(neutraliseMarkers(text))).toBe(false);
    expect(readsAsMarker(neutraliseMarkers(text.slice(0, -"/untrusted-web-content>".length) + "x"))).toBe(false);
  }
});
