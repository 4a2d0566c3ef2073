/**
 * How what a language server found reads to the model (and to the editor,
 * which shows the same text with the tool call): the errors of one file with
 * their lines, at most `MAX_LISTED` of them; a wait that stopped, said so; a
 * file whose errors went away, said so once.
 * @module
 */
import type { FileCheck } from "./session-servers.ts";
import type { FileReport } from "./language-server.ts";

/** Errors listed per file; the rest are counted. */
export const MAX_LISTED = 20;

/** The errors of a report as lines, bounded. */
export function errorLines(shown: string, server: string, report: FileReport): string {
  const lines = report.errors.slice(0, MAX_LISTED).map((e) => `  line ${e.line}, column ${e.column}: ${e.message}${e.code ? ` (${e.code})` : ""}`);
  const more = report.total - Math.min(report.errors.length, MAX_LISTED);
  if (more > 0) lines.push(`  … and ${more} more`);
  const count = report.total === 1 ? "1 error" : `${report.total} errors`;
  return [`The ${server} language server reports ${count} in ${shown}:`, ...lines].join("\n");
}

/** What an edit's result gets appended for one checked file; undefined when there is nothing to say (no errors, none before). */
export function checkText(check: FileCheck, shown: string): string | undefined {
  switch (check.kind) {
    case "notice":
      return check.text;
    case "stopped": {
      const while_ = check.starting ? " (it was starting)" : "";
      if (check.why === "exited") return `The ${check.server} language server exited before it reported on ${shown}; it is started again with the next change.`;
      if (check.why === "aborted") return undefined;
      return `Stopped waiting for the ${check.server} language server after ${check.seconds} s${while_}: errors in ${shown} are not known yet. Call diagnostics to check later.`;
    }
    case "report":
      if (check.report.total > 0) return errorLines(shown, check.server, check.report);
      if (check.previous && check.previous.total > 0) return `The ${check.server} language server reports no errors in ${shown} now.`;
      return undefined;
  }
}
