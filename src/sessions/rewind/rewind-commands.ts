/**
 * `/undo` and `/rewind [N]`, the rewind for every editor: built-in commands,
 * so they run holding the session's turn like `/compact`. `/undo` goes back
 * to before the last prompt; `/rewind` lists the points (the user messages,
 * numbered from 1, oldest first) and `/rewind N` goes back to before the Nth.
 * Both put the files the agent changed back first (a file the user changed
 * since is left as it is and named), then rewind the conversation.
 * @module
 */
import type { LiveSession } from "../live-session.ts";
import type { AgentServices } from "../services.ts";
import { rewindHeld, livePoints } from "./rewind-conversation.ts";
import type { RewindPoint } from "./rewind-points.ts";
import { filesFrom } from "../checkpoints/rewind-files.ts";
import type { EditorFiles, FileOutcome } from "../checkpoints/restore-files.ts";

/** Files and conversation back to before `point`; what to tell the user about the files. */
async function goBack(services: AgentServices, live: LiveSession, point: RewindPoint, editor?: EditorFiles): Promise<string> {
  const pick = (now: readonly RewindPoint[]) => now.find((p) => p.messageId === point.messageId) ?? point;
  const files = await filesFrom(services, live, pick, false, editor);
  await rewindHeld(services, live, pick);
  return filesReport(files);
}

/** One line per file that was put back or left. */
function filesReport(files: readonly FileOutcome[]): string {
  if (files.length === 0) return "No file the agent changed needed putting back.";
  const line = (f: FileOutcome) => {
    if (f.applied) return `  ${f.action === "delete" ? "removed (the agent created it)" : "restored"}${f.via === "editor" ? " in the editor" : ""}: ${f.path}${f.note ? ` — ${f.note}` : ""}`;
    return `  left as it is${f.action === "conflict" ? " (changed by you since)" : ""}: ${f.path}${f.reason ? ` — ${f.reason}` : ""}`;
  };
  return `Files:\n${files.map(line).join("\n")}`;
}

/** Characters of a message shown in a list or an answer. */
const PREVIEW_CHARS = 80;

function preview(point: RewindPoint): string {
  const line = point.text.replace(/\s+/g, " ").trim();
  if (line === "") return "(no text)";
  return line.length > PREVIEW_CHARS ? `“${line.slice(0, PREVIEW_CHARS - 1)}…”` : `“${line}”`;
}

/** `/undo`: the last prompt and everything after it leave the conversation. Answers what to tell the user. */
export async function undoCommand(services: AgentServices, live: LiveSession, editor?: EditorFiles): Promise<string> {
  const points = await livePoints(services, live);
  const last = points.at(-1);
  if (!last) return "Nothing to undo: the conversation has no prompt yet.";
  const files = await goBack(services, live, last, editor);
  return `Undone: ${preview(last)} and everything after it left the conversation.\n${files}`;
}

/** `/rewind` (list) or `/rewind N` (go back to before point N). Answers what to tell the user. */
export async function rewindCommand(services: AgentServices, live: LiveSession, args: string, editor?: EditorFiles): Promise<string> {
  const points = await livePoints(services, live);
  if (points.length === 0) return "Nothing to rewind: the conversation has no prompt yet.";
  const wanted = args.trim();
  if (wanted === "") {
    const lines = points.map((p, n) => `${n + 1}. ${preview(p)}`);
    return `Rewind points (\`/rewind N\` goes back to before message N):\n${lines.join("\n")}`;
  }
  const n = /^\d{1,9}$/.test(wanted) ? Number(wanted) : NaN;
  const point = points[n - 1];
  if (!point) return `Usage: /rewind N, where N is one of 1 to ${points.length} (\`/rewind\` lists them). Nothing was rewound.`;
  const files = await goBack(services, live, point, editor);
  return `Rewound to before message ${n} (${preview(point)}): it and everything after it left the conversation.\n${files}`;
}
