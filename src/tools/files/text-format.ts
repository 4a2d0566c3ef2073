/**
 * A text file's byte-order mark and line endings: stripped and normalised to
 * LF so edits can be matched the way the model sees the file, and put back on
 * write so the file keeps its format.
 * @module
 */

export type LineEnding = "\n" | "\r\n";

const BOM = "\uFEFF";

/** A file's text prepared for matching, and the way back to the original's offsets. */
export interface MatchableText {
  /** The text without a BOM and with every CRLF turned into LF. */
  text: string;
  /** The BOM the file started with ("" when none). */
  bom: string;
  /** The file's line ending (its first one; LF when it has none), used for inserted text. */
  lineEnding: LineEnding;
  /** Maps an offset in `text` to the same place in the original (BOM and CRs counted). */
  toOriginal(offset: number): number;
}

/** Splits a leading UTF-8 byte-order mark off `text`. */
export function stripBom(text: string): { bom: string; text: string } {
  return text.startsWith(BOM) ? { bom: BOM, text: text.slice(1) } : { bom: "", text };
}

/** The first line ending in `text`; LF when there is none. */
export function detectLineEnding(text: string): LineEnding {
  const lf = text.indexOf("\n");
  return lf > 0 && text[lf - 1] === "\r" ? "\r\n" : "\n";
}

/** Turns every CRLF into LF (a lone CR is left alone). */
export function normalizeToLf(text: string): string {
  return text.includes("\r\n") ? text.replaceAll("\r\n", "\n") : text;
}

/** Turns LF line endings into `ending` (expects LF-only input). */
export function restoreLineEndings(text: string, ending: LineEnding): string {
  return ending === "\r\n" ? text.replaceAll("\n", "\r\n") : text;
}

/**
 * Prepares a file's text for matching. Only the places an edit touches are
 * ever rewritten, through `toOriginal`, so a file with mixed line endings
 * keeps every line it did not change exactly as it was.
 */
export function toMatchable(original: string): MatchableText {
  const { bom, text: body } = stripBom(original);
  const lineEnding = detectLineEnding(body);
  // LF-text indices of the newlines that had a CR in front of them, ascending.
  const crlfAt: number[] = [];
  let text = body;
  if (body.includes("\r\n")) {
    let removed = 0;
    for (let i = body.indexOf("\r\n"); i !== -1; i = body.indexOf("\r\n", i + 2)) {
      crlfAt.push(i - removed);
      removed++;
    }
    text = body.replaceAll("\r\n", "\n");
  }
  return {
    text,
    bom,
    lineEnding,
    toOriginal(offset) {
      // Count the CRs removed before the boundary; one in front of a newline at
      // `offset` stays after the boundary, so the CRLF pair is never split.
      let lo = 0;
      let hi = crlfAt.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (crlfAt[mid]! < offset) lo = mid + 1;
        else hi = mid;
      }
      return bom.length + offset + lo;
    },
  };
}

/** Model-supplied text in the file's line ending (the model may send LF or CRLF). */
export function inFileFormat(text: string, lineEnding: LineEnding): string {
  return restoreLineEndings(normalizeToLf(text), lineEnding);
}
