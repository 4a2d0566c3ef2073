/**
 * The `diagnostics` tool `{path?}`: the errors its language server reports in
 * one file (handed to the server as it is now, within the wait bound), or the
 * last reports on every file the session changed — so the model can check
 * before it says it is done. Offered once a language server has started.
 * @module
 */
import * as v from "valibot";
import { displayPath, resolveInRoots, toAbsolute } from "../tools/paths.ts";
import { ToolError, type ToolDefinition } from "../tools/types.ts";
import { checkText, errorLines } from "./diagnostics-text.ts";
import type { SessionServers } from "./session-servers.ts";

/** Files listed by a call without a path; the rest are counted. */
const MAX_FILES_LISTED = 20;

export const DiagnosticsInput = v.object({
  path: v.optional(v.pipe(v.string(), v.description("A file to check; leave out for every file changed in this session"))),
});

/** The tool over a session's servers. */
export function createDiagnosticsTool(servers: SessionServers): ToolDefinition<typeof DiagnosticsInput> {
  return {
    name: "diagnostics",
    description:
      "The errors language servers report: in one file (checked as it is now), or, without a path, in every file changed in this session. " +
      "Use it before saying a change is done.",
    promptSnippet: "Language-server errors of a file or of the files changed so far",
    schema: DiagnosticsInput,
    kind: "read",
    readOnly: true,
    access(input, workspace) {
      return input.path === undefined ? { class: "none" } : { class: "read", paths: [toAbsolute(input.path, workspace.cwd)] };
    },
    describe(input, workspace) {
      if (input.path === undefined) return { title: "Diagnostics of the changed files", locations: [] };
      const absolute = toAbsolute(input.path, workspace.cwd);
      return { title: `Diagnostics of ${displayPath(absolute, workspace.cwd)}`, locations: [{ path: absolute }] };
    },
    async execute(input, { workspace, signal }) {
      if (input.path !== undefined) {
        const file = await resolveInRoots(input.path, workspace, "checked");
        const shown = displayPath(file, workspace.cwd);
        const text = await workspace.readTextFile(file, signal).catch((error: Error) => {
          throw new ToolError(`Could not read ${shown}: ${error.message}`);
        });
        const check = await servers.check(file, text, signal);
        if (!check) return { content: [{ type: "text", text: `No language server serves ${shown}.` }] };
        const text_ = check.kind === "report" && check.report.total === 0 ? `The ${check.server} language server reports no errors in ${shown}.` : checkText(check, shown);
        return { content: [{ type: "text", text: text_ ?? `The ${check.server} language server did not report on ${shown}.` }] };
      }
      const reports = await servers.reports();
      if (reports.length === 0) return { content: [{ type: "text", text: "No file changed in this session is served by a running language server." }] };
      const withErrors = reports.filter((r) => r.report && r.report.total > 0);
      if (withErrors.length === 0) return { content: [{ type: "text", text: `No errors in the ${reports.length} file(s) changed in this session that language servers serve.` }] };
      const parts = withErrors.slice(0, MAX_FILES_LISTED).map((r) => errorLines(displayPath(r.path, workspace.cwd), r.server, r.report!));
      if (withErrors.length > MAX_FILES_LISTED) parts.push(`… and ${withErrors.length - MAX_FILES_LISTED} more file(s) with errors.`);
      return { content: [{ type: "text", text: parts.join("\n\n") }] };
    },
  };
}
