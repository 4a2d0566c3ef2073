/**
 * `/undo` and `/rewind [N]`, the rewind for every editor: built-in commands,
 * so they run holding the session's turn like `/compact`. `/undo` goes back
 * to before the last prompt; `/rewind` lists the points (the user messages,
 * numbered from 1, oldest first) and `/rewind N` goes back to before the Nth.
 * @module
 */
import type { LiveSession } from "../live-session.ts";
import type { AgentServices } from "../services.ts";
import { rewindHeld, livePoints } from "./rewind-conversation.ts";
import type { RewindPoint } from "./rewind-points.ts";

/** Characters of a message shown in a list or an answer. */
const PREVIEW_CHARS = 80;

function preview(point: RewindPoint): string {
  const line = point.text.replace(/\s+/g, " ").trim();
  if (line === "") return "(no text)";
  return line.length > PREVIEW_CHARS ? `“${line.slice(0, PREVIEW_CHARS - 1)}…”` : `“${line}”`;
}

/** `/undo`: the last prompt and everything after it leave the conversation. Answers what to tell the user. */
export async function undoCommand(services: AgentServices, live: LiveSession): Promise<string> {
  const points = await livePoints(services, live);
  const last = points.at(-1);
  if (!last) return "Nothing to undo: the conversation has no prompt yet.";
  await rewindHeld(services, live, (now) => now.find((p) => p.messageId === last.messageId) ?? last);
  return `Undone: ${preview(last)} and everything after it left the conversation.`;
}

/** `/rewind` (list) or `/rewind N` (go back to before point N). Answers what to tell the user. */
export async function rewindCommand(services: AgentServices, live: LiveSession, args: string): Promise<string> {
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
  await rewindHeld(services, live, (now) => now.find((p) => p.messageId === point.messageId) ?? point);
  return `Rewound to before message ${n} (${preview(point)}): it and everything after it left the conversation.`;
}
