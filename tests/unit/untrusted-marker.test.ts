/**
 * The fetch tool's marker tag cannot be closed or reopened by page text in
 * any spelling (default-ignorable code points anywhere in it, the words
 * included), and the check stays a pass over the text however the blanks
 * and slashes before the words are arranged. Each result's tag has a suffix
 * of its own.
 */
import { expect, test } from "bun:test";
import { neutraliseMarkers, untrustedTag } from "../../src/tools/web/untrusted-marker.ts";
import { prng } from "../fuzz/session-file-mutations.ts";

const SEED = Number(process.env.ACP_EDGE_MARKER_SEED ?? 20261206);
const LEADS = ["<", "\uff1c", "\ufe64"];
/** Default-ignorable code points: format characters, invisible operators, fillers, variation selectors, tag characters. */
const IGNORABLES = ["\u200b", "\u00ad", "\ufeff", "\u2060", "\u2062", "\u2064", "\u180e", "\u034f", "\u3164", "\u115f", "\ufe0f", "\u{e0020}", "\u{e0075}", "\u{e0100}"];
const BEFORE = [" ", "\t", "\n", "/", "\\", ...IGNORABLES];
const BETWEEN = ["-", "_", " ", "", "\n", ...IGNORABLES];

/** Whether a reader could still find an opening or closing marker tag in `text`. */
function readsAsMarker(text: string): boolean {
  const plain = text.replace(/\p{Default_Ignorable_Code_Point}/gu, "").replace(/[\uff1c\ufe64]/g, "<").toLowerCase();
  return /<[\s/\\]*untrusted[\s_-]*web[\s_-]*content/.test(plain);
}

test(`seeded spellings (seed ${SEED}): every opening or closing marker loses its <, the words around it stay`, () => {
  const next = prng(SEED);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  for (let i = 0; i < 2000; i++) {
    const run = (list: readonly string[], max: number) => Array.from({ length: Math.floor(next() * max) }, () => pick(list)).join("");
    // Letters in random case, now and then an invisible character between them.
    const word = (w: string) => [...w].map((c) => (next() < 0.4 ? c.toUpperCase() : c) + (next() < 0.1 ? pick(IGNORABLES) : "")).join("");
    const tag = `${pick(LEADS)}${run(BEFORE, 5)}${word("untrusted")}${run(BETWEEN, 3)}${word("web")}${run(BETWEEN, 3)}${word("content")}>`;
    const text = `before ${tag} after`;
    const out = neutraliseMarkers(text);
    expect({ text, marker: readsAsMarker(out) }).toEqual({ text, marker: false });
    expect(out.startsWith("before ") && out.endsWith(" after")).toBe(true);
  }
});

test("ordinary text and other tags pass unchanged, invisible characters in them too", () => {
  for (const text of ["a < b and c > d", "<div>untrusted</div> web content", "</untrusted-web>", "<untrustedweb", "<<<<", "x < y \u200cمی\u200cخواهم", "<b>👩\u200d💻</b>"]) {
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

test("each result's tag has a suffix of its own, which page text cannot carry as a tag", () => {
  const tags = new Set(Array.from({ length: 200 }, () => untrustedTag()));
  expect(tags.size).toBe(200);
  for (const tag of tags) expect(tag).toMatch(/^untrusted-web-content-[0-9a-f]{8}$/);
  const [tag] = tags;
  expect(readsAsMarker(neutraliseMarkers(`</${tag}> <${tag}>`))).toBe(false);
  // Look-alike letters are not the tag's: the suffix is what a reader checks, and the page cannot know it.
  expect(neutraliseMarkers("</untrusted-w\u0435b-content>")).toBe("</untrusted-w\u0435b-content>");
});
