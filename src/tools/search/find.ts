/**
 * The `find` tool: files and directories whose names (or relative paths)
 * match a glob, like `fd --glob --hidden`, honouring .gitignore.
 * @module
 */
import * as v from "valibot";
import { statOrUndefined } from "../../runtime/files/fs.ts";
import { compileGlob, reportingWalk, throwIfAborted, walkFiles } from "./file-walker.ts";
import { directoryLabel } from "../files/ls.ts";
import { loadSearchEngines } from "./search-engines.ts";
import { displayPath, resolveInRoots, toAbsolute } from "../paths.ts";
import { cappedListing, DEFAULT_MAX_BYTES } from "../truncate.ts";
import { ToolError, type ToolDefinition } from "../types.ts";
import { WITHHELD_FROM_LISTING } from "./withheld-note.ts";

const DEFAULT_LIMIT = 1000;

export const FindInput = v.object({
  pattern: v.pipe(
    v.string(),
    v.description("Glob pattern to match files, e.g. '*.ts', '**/*.json', or 'src/**/*.spec.ts'"),
  ),
  path: v.optional(v.pipe(v.string(), v.description("Directory to search in (default: current directory)"))),
  limit: v.optional(v.pipe(v.number(), v.description(`Maximum number of results (default: ${DEFAULT_LIMIT})`))),
});

export const findTool: ToolDefinition<typeof FindInput> = {
  name: "find",
  description:
    `Search for files by glob pattern. Returns matching file paths relative to the search directory. ` +
    `A pattern without '/' matches file names at any depth. Respects .gitignore. ` +
    `Output is truncated to ${DEFAULT_LIMIT} results or ${DEFAULT_MAX_BYTES / 1024}KB (whichever is hit first).`,
  promptSnippet: "Find files by glob pattern (respects .gitignore)",
  schema: FindInput,
  kind: "search",
  readOnly: true,

  access(input, workspace) {
    return { class: "read", paths: [toAbsolute(input.path ?? ".", workspace.cwd)] };
  },

  describe(input, workspace) {
    const absolute = toAbsolute(input.path ?? ".", workspace.cwd);
    const where = input.path !== undefined ? ` in ${directoryLabel(absolute, workspace.cwd)}` : "";
    return { title: `Find ${input.pattern}${where}`, locations: [{ path: absolute }] };
  },

  async execute(input, { workspace, signal, outsideRootsApproved, pathFilter }) {
    throwIfAborted(signal);
    await loadSearchEngines();
    const limit = Math.max(1, Math.floor(input.limit ?? DEFAULT_LIMIT));
    const absolute = await resolveInRoots(input.path ?? ".", workspace, "searched", outsideRootsApproved);
    const shown = displayPath(absolute, workspace.cwd);
    const info = await statOrUndefined(absolute);
    if (!info) throw new ToolError(`Path not found: ${shown}`);
    if (!info.isDirectory) throw new ToolError(`Not a directory: ${shown}`);

    const matches = compileGlob(input.pattern);
    const found: string[] = [];
    const roots = outsideRootsApproved ? [...workspace.roots, absolute] : workspace.roots;
    const { options: walk, report } = reportingWalk(roots, signal, pathFilter);
    for await (const entry of walkFiles(absolute, walk)) {
      if (!matches(entry.relativePath)) continue;
      found.push(entry.isDirectory ? `${entry.relativePath}/` : entry.relativePath);
      if (found.length >= limit) break;
    }
    throwIfAborted(signal);

    const { withheld, unappliedRules } = report;
    const withheldNote = withheld ? WITHHELD_FROM_LISTING : undefined;
    if (found.length === 0) {
      const notes = [...(withheldNote ? [withheldNote] : []), ...unappliedRules];
      const text = `No files found matching pattern${notes.length > 0 ? `\n\n[${notes.join(". ")}]` : ""}`;
      return { content: [{ type: "text", text }], details: { path: absolute, results: 0, ...(withheld ? { withheld: true } : {}) } };
    }
    const limitReached = found.length >= limit;
    const { text, truncated } = cappedListing(
      found,
      limitReached ? `${limit} results limit reached. Use limit=${limit * 2} for more, or refine pattern` : undefined,
      withheldNote,
      ...unappliedRules,
    );
    return {
      content: [{ type: "text", text }],
      details: {
        path: absolute,
        results: found.length,
        ...(limitReached ? { resultLimitReached: limit } : {}),
        ...(truncated ? { truncated: true } : {}),
        ...(withheld ? { withheld: true } : {}),
      },
    };
  },
};
