/**
 * The `grep` tool: a regex (or literal text) over the files below a
 * directory, gitignore-aware, in pi's `path:N: text` output format. Patterns
 * run on a linear-time engine, and the search yields to the event loop
 * between lines, so no pattern or file can stall the process or outlast a
 * cancel.
 * @module
 */
import * as v from "valibot";
import { statOrUndefined } from "../../runtime/files/fs.ts";
import { basename } from "../../runtime/files/path.ts";
import { redactSecrets } from "../../runtime/secrets.ts";
import { compileGlob, reportingWalk, throwIfAborted, walkFiles } from "./file-walker.ts";
import { compileLinearRegex, UnsupportedRegexError, type LinearRegex } from "./linear-regex.ts";
import { loadSearchEngines } from "./search-engines.ts";
import { displayPath, resolveInRoots, toAbsolute } from "../paths.ts";
import { DEFAULT_MAX_BYTES, GREP_MAX_LINE_LENGTH, formatSize, truncateHeadWithNotice, truncateLine, utf8Length } from "../truncate.ts";
import { timeSlicer, type TimeSlicer } from "./time-slice.ts";
import { ToolError, type ToolDefinition, type Workspace } from "../types.ts";
import { WITHHELD_FROM_SEARCH } from "./withheld-note.ts";

const DEFAULT_LIMIT = 100;
/** Bigger files are skipped, as generated or data files rarely hold what a model greps for. */
export const GREP_MAX_FILE_BYTES = 10 * 1024 * 1024;
const SNIFF_BYTES = 8 * 1024;
/**
 * The most work (line length × pattern program size) one line may cost. The
 * engine is linear, but one match call cannot be interrupted, so a huge line
 * times a complex pattern is skipped with a notice instead of blocking for seconds.
 */
export const GREP_LINE_COST_BUDGET = 20_000_000;

export const GrepInput = v.object({
  pattern: v.pipe(
    v.string(),
    v.description(
      "Search pattern: a regex in RE2 syntax (JavaScript-style escapes and (?<name>…) groups work; no backreferences or lookaround), or literal text with literal=true",
    ),
  ),
  path: v.optional(v.pipe(v.string(), v.description("Directory or file to search (default: current directory)"))),
  glob: v.optional(v.pipe(v.string(), v.description("Filter files by glob pattern, e.g. '*.ts' or '**/*.spec.ts'"))),
  ignoreCase: v.optional(v.pipe(v.boolean(), v.description("Case-insensitive search (default: false)"))),
  literal: v.optional(
    v.pipe(v.boolean(), v.description("Treat pattern as literal string instead of regex (default: false)")),
  ),
  context: v.optional(
    v.pipe(v.number(), v.description("Number of lines to show before and after each match (default: 0)")),
  ),
  limit: v.optional(v.pipe(v.number(), v.description(`Maximum number of matches to return (default: ${DEFAULT_LIMIT})`))),
});

/** Compiles the search pattern; a pattern the engine refuses becomes a `ToolError` saying why. */
export function compilePattern(pattern: string, options: { ignoreCase?: boolean; literal?: boolean }): LinearRegex {
  try {
    return compileLinearRegex(pattern, options);
  } catch (error) {
    if (error instanceof UnsupportedRegexError) throw new ToolError(`Invalid regex: ${error.message}`);
    throw error;
  }
}

interface SearchState {
  regex: LinearRegex;
  /** Longer lines are not matched (see GREP_LINE_COST_BUDGET). */
  maxLineLength: number;
  skippedLongLines: number;
  slicer: TimeSlicer;
  context: number;
  limit: number;
  matches: number;
  filesWithMatches: number;
  outputBytes: number;
  linesTruncated: boolean;
  /** Set when the match limit or the output budget is reached: no need to look further. */
  done: boolean;
  output: string[];
}

const decoder = new TextDecoder("utf-8");

/** Searches one file and appends its blocks to `state.output`. Skips binary and oversized files. */
async function searchFile(path: string, label: string, workspace: Workspace, state: SearchState): Promise<void> {
  const info = await statOrUndefined(path);
  if (!info || !info.isFile || info.size > GREP_MAX_FILE_BYTES) return;
  let bytes: Uint8Array;
  try {
    bytes = await workspace.readFileBytes(path);
  } catch {
    return; // unreadable (permissions, vanished): skip like rg does
  }
  if (bytes.subarray(0, SNIFF_BYTES).includes(0)) return;
  const lines = decoder.decode(bytes).split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();

  const matched: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    await state.slicer.pause();
    const line = lines[i] ?? "";
    if (line.length > state.maxLineLength) {
      state.skippedLongLines++;
      continue;
    }
    if (state.regex.test(line)) {
      matched.push(i);
      state.matches++;
      if (state.matches >= state.limit) {
        state.done = true;
        break;
      }
    }
  }
  if (matched.length === 0) return;
  state.filesWithMatches++;

  const isMatch = new Set(matched);
  const shown = new Set<number>();
  for (const index of matched) {
    const from = Math.max(0, index - state.context);
    const to = Math.min(lines.length - 1, index + state.context);
    for (let i = from; i <= to; i++) shown.add(i);
  }
  for (const index of [...shown].sort((a, b) => a - b)) {
    // Secrets are hidden before a long line is cut: the cut could leave part of one that redaction no longer recognises.
    const { text, wasTruncated } = truncateLine(redactSecrets((lines[index] ?? "").replace(/\r$/, "")));
    if (wasTruncated) state.linesTruncated = true;
    const line = isMatch.has(index) ? `${label}:${index + 1}: ${text}` : `${label}-${index + 1}- ${text}`;
    state.output.push(line);
    state.outputBytes += utf8Length(line) + 1;
  }
  // Everything past the budget would be cut anyway.
  if (state.outputBytes > DEFAULT_MAX_BYTES) state.done = true;
}

export const grepTool: ToolDefinition<typeof GrepInput> = {
  name: "grep",
  description:
    `Search file contents for a pattern (a regular expression in RE2 syntax, or literal text). Returns matching lines ` +
    `with file paths and line numbers. Respects .gitignore; skips binary files and files over ` +
    `${formatSize(GREP_MAX_FILE_BYTES)}. Output is truncated to ${DEFAULT_LIMIT} matches or ` +
    `${DEFAULT_MAX_BYTES / 1024}KB (whichever is hit first). Long lines are truncated to ${GREP_MAX_LINE_LENGTH} chars. ` +
    `Patterns run in linear time: JavaScript-style escapes, classes, \\p{…}, (?i) and (?<name>…) groups work; ` +
    `backreferences and lookahead/lookbehind are rejected.`,
  promptSnippet: "Search file contents for patterns (respects .gitignore)",
  schema: GrepInput,
  kind: "search",
  readOnly: true,

  access(input, workspace) {
    return { class: "read", paths: [toAbsolute(input.path ?? ".", workspace.cwd)] };
  },

  describe(input, workspace) {
    const absolute = toAbsolute(input.path ?? ".", workspace.cwd);
    // Whether the path is a file or a directory is unknown until it runs; keep the caller's trailing slash.
    const slash = input.path?.endsWith("/") && absolute !== workspace.cwd ? "/" : "";
    const where = input.path !== undefined ? ` in ${displayPath(absolute, workspace.cwd)}${slash}` : "";
    return { title: `Grep "${input.pattern}"${where}`, locations: [{ path: absolute }] };
  },

  async execute(input, { workspace, signal, outsideRootsApproved, pathFilter }) {
    throwIfAborted(signal);
    await loadSearchEngines();
    const regex = compilePattern(input.pattern, input);
    const absolute = await resolveInRoots(input.path ?? ".", workspace, "searched", outsideRootsApproved);
    const info = await statOrUndefined(absolute);
    if (!info) throw new ToolError(`Path not found: ${displayPath(absolute, workspace.cwd)}`);

    const state: SearchState = {
      regex,
      maxLineLength: Math.floor(GREP_LINE_COST_BUDGET / Math.max(1, regex.cost)),
      skippedLongLines: 0,
      slicer: timeSlicer(signal),
      context: Math.max(0, Math.floor(input.context ?? 0)),
      limit: Math.max(1, Math.floor(input.limit ?? DEFAULT_LIMIT)),
      matches: 0,
      filesWithMatches: 0,
      outputBytes: 0,
      linesTruncated: false,
      done: false,
      output: [],
    };

    const roots = outsideRootsApproved ? [...workspace.roots, absolute] : workspace.roots;
    const { options: walk, report } = reportingWalk(roots, signal, pathFilter);
    if (info.isDirectory) {
      const inGlob = input.glob !== undefined ? compileGlob(input.glob) : () => true;
      for await (const entry of walkFiles(absolute, walk)) {
        if (entry.isDirectory || !inGlob(entry.relativePath)) continue;
        await searchFile(entry.path, entry.relativePath, workspace, state);
        throwIfAborted(signal);
        if (state.done) break;
      }
    } else {
      await searchFile(absolute, basename(absolute), workspace, state);
    }
    throwIfAborted(signal);

    const summary = {
      path: absolute,
      matches: state.matches,
      files: state.filesWithMatches,
      ...(report.withheld ? { withheld: true } : {}),
      ...(state.skippedLongLines > 0 ? { skippedLongLines: state.skippedLongLines } : {}),
    };
    const skipped =
      state.skippedLongLines > 0
        ? `${state.skippedLongLines} line(s) longer than ${state.maxLineLength} chars were not searched: too costly for this pattern; use a simpler pattern`
        : undefined;
    if (state.matches === 0) {
      const notices = [...(report.withheld ? [WITHHELD_FROM_SEARCH] : []), ...(skipped ? [skipped] : []), ...report.unappliedRules];
      return { content: [{ type: "text", text: notices.length > 0 ? `No matches found\n\n[${notices.join(". ")}]` : "No matches found" }], details: summary };
    }

    const limitReached = state.matches >= state.limit;
    const { text, result } = truncateHeadWithNotice(
      state.output.join("\n"),
      (r) => {
        const notices: string[] = report.withheld ? [WITHHELD_FROM_SEARCH] : [];
        if (limitReached) {
          notices.push(`${state.limit} matches limit reached. Use limit=${state.limit * 2} for more, or refine pattern`);
        }
        if (r.truncated) notices.push(`${formatSize(DEFAULT_MAX_BYTES)} limit reached`);
        if (state.linesTruncated) {
          notices.push(`Some lines truncated to ${GREP_MAX_LINE_LENGTH} chars. Use read to see full lines`);
        }
        if (skipped) notices.push(skipped);
        notices.push(...report.unappliedRules);
        return notices.length > 0 ? `\n\n[${notices.join(". ")}]` : "";
      },
      { maxLines: Number.MAX_SAFE_INTEGER },
    );
    return {
      content: [{ type: "text", text }],
      details: {
        ...summary,
        ...(limitReached ? { matchLimitReached: state.limit } : {}),
        ...(result.truncated ? { truncated: true } : {}),
        ...(state.linesTruncated ? { linesTruncated: true } : {}),
      },
    };
  },
};
