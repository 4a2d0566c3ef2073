/**
 * The diagnostics step around `write` and `edit` (and any tool that changes
 * files): once the call succeeded, each file it changed is read back through
 * the workspace (the editor's view of it when the editor writes files) and
 * handed to its language server; what the server reports is appended to the
 * result the model reads next and the editor shows with the call.
 * @module
 */
import type { CallStep, StepCall } from "../engine/call-steps.ts";
import { displayPath } from "../tools/paths.ts";
import { checkText } from "./diagnostics-text.ts";
import type { SessionServers } from "./session-servers.ts";

/** Files of one call that are checked; a call changing more leaves the rest to the `diagnostics` tool. */
const MAX_FILES_PER_CALL = 4;

/** The files a call changes, as its access says (absolute). */
function changedFiles(call: StepCall): string[] {
  try {
    const access = call.tool.access?.(call.input, call.workspace);
    return access?.class === "edit" ? (access.paths ?? []).slice(0, MAX_FILES_PER_CALL) : [];
  } catch {
    return [];
  }
}

/** The step for a session's servers. */
export function diagnosticsStep(servers: SessionServers): CallStep {
  return {
    async before(call) {
      const files = changedFiles(call);
      if (files.length === 0) return undefined;
      return async ({ result }) => {
        if (!result || result.isError) return undefined;
        const notes: string[] = [];
        for (const file of files) {
          const text = await call.workspace.readTextFile(file, call.signal).catch(() => undefined);
          if (text === undefined) continue;
          const check = await servers.check(file, text, call.signal);
          const note = check && checkText(check, displayPath(file, call.workspace.cwd));
          if (note) notes.push(note);
        }
        // Appended to the call's result: what the model reads next and what the editor shows with the call.
        return notes.length === 0 ? undefined : notes.join("\n\n");
      };
    },
  };
}
