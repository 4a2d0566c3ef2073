import { describe, expect, test } from "bun:test";
import { countOccurrences, createMatcher, findText, normalizeForMatch } from "../../src/tools/files/edit-match.ts";
import { detectLineEnding, inFileFormat, stripBom, toMatchable } from "../../src/tools/files/text-format.ts";

/** Replaces a unique match in `content`, the way edit does. */
function replace(content: string, needle: string, replacement: string): string {
  const found = findText(content, needle);
  if (found.kind !== "unique") throw new Error(`expected a unique match, got ${JSON.stringify(found)}`);
  return content.slice(0, found.start) + replacement + content.slice(found.end);
}

describe("exact matching", () => {
  test("finds a unique match at its offsets", () => {
    expect(findText("alpha beta gamma", "beta")).toEqual({ kind: "unique", start: 6, end: 10, fuzzy: false });
  });

  test("reports every occurrence, overlapping ones included", () => {
    expect(findText("x = 1;\nx = 1;\nx = 1;\n", "x = 1;")).toEqual({ kind: "ambiguous", occurrences: 3, fuzzy: false });
    expect(countOccurrences("aaa", "aa")).toBe(2);
    expect(findText("aaa", "aa")).toEqual({ kind: "ambiguous", occurrences: 2, fuzzy: false });
  });

  test("missing and empty needles", () => {
    expect(findText("abc", "xyz")).toEqual({ kind: "missing" });
    expect(findText("abc", "")).toEqual({ kind: "missing" });
    expect(countOccurrences("abc", "")).toBe(0);
  });

  test("an exact match wins even when a normalised one would also exist", () => {
    const content = "say \u201Chi\u201D\nsay \"hi\"\n";
    expect(findText(content, 'say "hi"')).toEqual({ kind: "unique", start: 9, end: 17, fuzzy: false });
  });
});

describe("normalised fallback", () => {
  test("trailing whitespace in the file: only the matched text is replaced, the spaces stay", () => {
    const content = "function f() {   \n  return 1;\t \n}\n";
    const found = findText(content, "function f() {\n  return 1;\n}");
    expect(found).toEqual({ kind: "unique", start: 0, end: content.length - 1, fuzzy: true });
    expect(content.length - 1).toBe(33);
    expect(replace(content, "  return 1;", "  return 2;")).toBe("function f() {   \n  return 2;\t \n}\n");
  });

  test("trailing whitespace in the needle", () => {
    expect(replace("a\nb\nc\n", "b   ", "B")).toBe("a\nB\nc\n");
  });

  test("smart quotes in the file, ASCII in the needle; the rest keeps its smart quotes", () => {
    const content = "const a = \u2018x\u2019;\nconst b = \u201Cy\u201D;\nconst c = \u201Cz\u201D;\n";
    expect(replace(content, 'const b = "y";', 'const b = "Y";')).toBe(
      "const a = \u2018x\u2019;\nconst b = \"Y\";\nconst c = \u201Cz\u201D;\n",
    );
  });

  test("unicode dashes and the minus sign match '-'", () => {
    const content = "range 1\u20132 \u2014 note\nx \u2212 y\n";
    expect(replace(content, "range 1-2 - note", "range 1-3")).toBe("range 1-3\nx \u2212 y\n");
    expect(replace(content, "x - y", "x + y")).toBe("range 1\u20132 \u2014 note\nx + y\n");
  });

  test("NBSP, thin and ideographic spaces match a space", () => {
    const content = "a\u00A0b\nc\u2009d\ne\u3000f\n";
    expect(replace(content, "c d", "C D")).toBe("a\u00A0b\nC D\ne\u3000f\n");
    expect(findText(content, "a b")).toEqual({ kind: "unique", start: 0, end: 3, fuzzy: true });
  });

  test("NFKC: a ligature and a decomposed accent", () => {
    expect(replace("the \uFB01le\n", "the file", "the doc")).toBe("the doc\n");
    // "cafe" + combining acute in the file, precomposed é in the needle: the mark is part of the match.
    const decomposed = "caf\u0065\u0301 ok\n";
    expect(findText(decomposed, "caf\u00E9")).toEqual({ kind: "unique", start: 0, end: 5, fuzzy: true });
    expect(replace(decomposed, "caf\u00E9", "tea")).toBe("tea ok\n");
  });

  test("a match cannot start or end inside what one original character became", () => {
    // "ﬁ" normalises to "fi"; "ix" would need half of it.
    expect(findText("\uFB01x\n", "ix")).toEqual({ kind: "missing" });
    expect(findText("\uFB01x\n", "f")).toEqual({ kind: "missing" });
  });

  test("normalised duplicates are ambiguous", () => {
    expect(findText("\u201Ca\u201D and \u201Ca\u201D", '"a"')).toEqual({ kind: "ambiguous", occurrences: 2, fuzzy: true });
  });

  test("a needle that normalises to nothing does not match", () => {
    expect(findText("a\nb\n", " \t ")).toEqual({ kind: "missing" });
  });

  test("the matcher normalises the file once and reuses it", () => {
    const find = createMatcher("x\u00A0= 1;\ny\u00A0= 2;\n");
    expect(find("x = 1;")).toEqual({ kind: "unique", start: 0, end: 6, fuzzy: true });
    expect(find("y = 2;")).toEqual({ kind: "unique", start: 7, end: 13, fuzzy: true });
  });
});

describe("normalizeForMatch", () => {
  test("maps every output unit to its source span", () => {
    const n = normalizeForMatch("a\u2014b  \n\uFB01");
    expect(n.text).toBe("a-b\nfi");
    expect(Array.from(n.from)).toEqual([0, 1, 2, 5, 6, 6]);
    expect(Array.from(n.to)).toEqual([1, 2, 3, 6, 7, 7]);
  });

  test("astral characters and lone surrogates come through unchanged", () => {
    expect(normalizeForMatch("a\u{1F600}b \n").text).toBe("a\u{1F600}b\n");
    expect(normalizeForMatch("a\uD800b").text).toBe("a\uD800b");
  });

  test("ASCII text is unchanged apart from trailing whitespace", () => {
    expect(normalizeForMatch("x \t\ny\r\nz  ").text).toBe("x\ny\nz");
  });
});

describe("text format", () => {
  test("BOM and line ending detection", () => {
    expect(stripBom("\uFEFFabc")).toEqual({ bom: "\uFEFF", text: "abc" });
    expect(stripBom("abc")).toEqual({ bom: "", text: "abc" });
    expect(detectLineEnding("a\r\nb\n")).toBe("\r\n");
    expect(detectLineEnding("a\nb\r\n")).toBe("\n");
    expect(detectLineEnding("abc")).toBe("\n");
  });

  test("toMatchable strips the BOM, normalises CRLF and maps offsets back", () => {
    const m = toMatchable("\uFEFFab\r\ncd\r\nef");
    expect(m.text).toBe("ab\ncd\nef");
    expect(m.bom).toBe("\uFEFF");
    expect(m.lineEnding).toBe("\r\n");
    // Before "a", before the first newline (the CR stays outside), after it, end of text.
    expect([0, 2, 3, 5, 6, 8].map((o) => m.toOriginal(o))).toEqual([1, 3, 5, 7, 9, 11]);
  });

  test("inFileFormat converts model text to the file's ending", () => {
    expect(inFileFormat("a\nb\r\nc", "\r\n")).toBe("a\r\nb\r\nc");
    expect(inFileFormat("a\r\nb\nc", "\n")).toBe("a\nb\nc");
  });
});
