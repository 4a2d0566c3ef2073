/**
 * Keeping tool output inside the model's budget: 2000 lines or 50 KiB,
 * whichever comes first. Head truncation (read, listings, a subagent's answer)
 * keeps whole lines from the start; tail truncation (command output) keeps the
 * end. A single line longer than the budget is cut, never dropped: the head
 * keeps its start, the tail its end.
 * @module
 */

export const DEFAULT_MAX_LINES = 2000;
export const DEFAULT_MAX_BYTES = 50 * 1024;
/** grep cuts each printed line to this many characters. */
export const GREP_MAX_LINE_LENGTH = 500;

export interface TruncationOptions {
  maxLines?: number;
  maxBytes?: number;
}

export interface TruncationResult {
  content: string;
  truncated: boolean;
  /** Which limit stopped the output, when it was cut. */
  truncatedBy: "lines" | "bytes" | null;
  totalLines: number;
  totalBytes: number;
  outputLines: number;
  outputBytes: number;
  /** Head: the first line alone is over `maxBytes`, so only its start was kept (cut, never dropped). */
  firstLineExceedsLimit: boolean;
  /** Tail: the only kept line is the end of a longer one. */
  lastLinePartial: boolean;
}

/** UTF-8 length of a string without allocating an encoded copy. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** `512B`, `50.0KB`, `1.5MB` — the format pi's notices use. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes}B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)}MB`;
}

/** What both directions start from: the limits, the content's lines and size, or the whole content when it fits. */
type Cut = { maxLines: number; maxBytes: number; lines: string[]; totalBytes: number };

function prepareCut(content: string, options: TruncationOptions): Cut | TruncationResult {
  const maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const totalBytes = utf8Length(content);
  const lines = content.split("\n");
  if (lines.length > maxLines || totalBytes > maxBytes) return { maxLines, maxBytes, lines, totalBytes };
  return {
    content,
    truncated: false,
    truncatedBy: null,
    totalLines: lines.length,
    totalBytes,
    outputLines: lines.length,
    outputBytes: totalBytes,
    firstLineExceedsLimit: false,
    lastLinePartial: false,
  };
}

/** The result of a cut that kept `kept` (in order) of `outputBytes`. */
function cutResult(
  cut: Cut,
  kept: string[],
  outputBytes: number,
  truncatedBy: "lines" | "bytes",
  flags: Pick<TruncationResult, "firstLineExceedsLimit" | "lastLinePartial">,
): TruncationResult {
  return {
    content: kept.join("\n"),
    truncated: true,
    truncatedBy,
    totalLines: cut.lines.length,
    totalBytes: cut.totalBytes,
    outputLines: kept.length,
    outputBytes,
    ...flags,
  };
}

/** Keeps whole lines from the start; when the first line alone is too long, keeps its start. */
export function truncateHead(content: string, options: TruncationOptions = {}): TruncationResult {
  const cut = prepareCut(content, options);
  if ("content" in cut) return cut;
  const { lines, maxLines, maxBytes } = cut;
  const kept: string[] = [];
  let bytes = 0;
  let truncatedBy: "lines" | "bytes" = "lines";
  for (let i = 0; i < lines.length && i < maxLines; i++) {
    const lineBytes = utf8Length(lines[i] ?? "") + (i > 0 ? 1 : 0);
    if (bytes + lineBytes > maxBytes) {
      truncatedBy = "bytes";
      break;
    }
    kept.push(lines[i] ?? "");
    bytes += lineBytes;
  }
  const firstLineExceedsLimit = kept.length === 0 && truncatedBy === "bytes";
  if (firstLineExceedsLimit) {
    // One line longer than the budget (a minified file, an answer on one line): its start, not nothing.
    const start = headWithinBytes(lines[0] ?? "", maxBytes);
    kept.push(start);
    bytes = utf8Length(start);
  }
  return cutResult(cut, kept, bytes, truncatedBy, { firstLineExceedsLimit, lastLinePartial: false });
}

/** Keeps whole lines from the end; when the last line alone is too long, keeps its end. */
export function truncateTail(content: string, options: TruncationOptions = {}): TruncationResult {
  const cut = prepareCut(content, options);
  if ("content" in cut) return cut;
  const { lines, maxLines, maxBytes } = cut;
  const kept: string[] = [];
  let bytes = 0;
  let truncatedBy: "lines" | "bytes" = "lines";
  let lastLinePartial = false;
  for (let i = lines.length - 1; i >= 0 && kept.length < maxLines; i--) {
    const line = lines[i] ?? "";
    const lineBytes = utf8Length(line) + (kept.length > 0 ? 1 : 0);
    if (bytes + lineBytes > maxBytes) {
      truncatedBy = "bytes";
      if (kept.length === 0) {
        const end = tailWithinBytes(line, maxBytes);
        kept.push(end);
        bytes = utf8Length(end);
        lastLinePartial = true;
      }
      break;
    }
    kept.push(line);
    bytes += lineBytes;
  }
  kept.reverse();
  return cutResult(cut, kept, bytes, truncatedBy, { firstLineExceedsLimit: false, lastLinePartial });
}

/** The longest suffix of `line` whose UTF-8 form fits in `maxBytes`, never splitting a surrogate pair. */
function tailWithinBytes(line: string, maxBytes: number): string {
  let bytes = 0;
  let start = line.length;
  while (start > 0) {
    let from = start - 1;
    const code = line.charCodeAt(from);
    if (code >= 0xdc00 && code <= 0xdfff && from > 0) {
      const high = line.charCodeAt(from - 1);
      if (high >= 0xd800 && high <= 0xdbff) from--;
    }
    const size = utf8Length(line.slice(from, start));
    if (bytes + size > maxBytes) break;
    bytes += size;
    start = from;
  }
  return line.slice(start);
}

/** The longest prefix of `line` whose UTF-8 form fits in `maxBytes`, never splitting a surrogate pair. */
function headWithinBytes(line: string, maxBytes: number): string {
  let bytes = 0;
  let end = 0;
  while (end < line.length) {
    const code = line.charCodeAt(end);
    const pair = code >= 0xd800 && code <= 0xdbff && end + 1 < line.length && isLowSurrogate(line.charCodeAt(end + 1));
    const size = pair ? 4 : code < 0x80 ? 1 : code < 0x800 ? 2 : 3;
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += pair ? 2 : 1;
  }
  return line.slice(0, end);
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Cuts one line to `maxChars`, marking the cut (grep output). */
export function truncateLine(line: string, maxChars = GREP_MAX_LINE_LENGTH): { text: string; wasTruncated: boolean } {
  if (line.length <= maxChars) return { text: line, wasTruncated: false };
  return { text: `${line.slice(0, maxChars)}... [truncated]`, wasTruncated: true };
}

/**
 * Head-truncates `content` and appends the notice `makeNotice` builds for the
 * result, shrinking the kept part if needed so that content plus notice still
 * fit in `maxBytes` (tool output must never exceed the budget).
 */
export function truncateHeadWithNotice(
  content: string,
  makeNotice: (result: TruncationResult) => string,
  options: TruncationOptions = {},
): { text: string; result: TruncationResult } {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  let result = truncateHead(content, options);
  let notice = makeNotice(result);
  let text = result.content + notice;
  let budget = maxBytes;
  // Each pass shrinks the content budget by the overshoot; notices only get shorter as numbers shrink.
  while (utf8Length(text) > maxBytes && budget > 0) {
    budget -= utf8Length(text) - maxBytes + 16;
    result = truncateHead(content, { ...options, maxBytes: Math.max(0, budget) });
    notice = makeNotice(result);
    text = result.content + notice;
  }
  return { text, result };
}

/**
 * A listing (one item per line) cut to the byte cap, with one bracketed
 * note joining the given notices (a count limit, withheld entries) and the cap.
 */
export function cappedListing(items: readonly string[], ...extraNotices: Array<string | undefined>): { text: string; truncated: boolean } {
  const { text, result } = truncateHeadWithNotice(
    items.join("\n"),
    (r) => {
      const notices: string[] = extraNotices.filter((n): n is string => n !== undefined && n !== "");
      if (r.truncated) notices.push(`${formatSize(DEFAULT_MAX_BYTES)} limit reached`);
      return notices.length > 0 ? `\n\n[${notices.join(". ")}]` : "";
    },
    { maxLines: Number.MAX_SAFE_INTEGER },
  );
  return { text, truncated: result.truncated };
}
