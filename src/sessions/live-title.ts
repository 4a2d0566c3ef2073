/**
 * A live session's title: taken from the first prompt, changed with `/name`,
 * stored in the journal and told to every attached client.
 * @module
 */
import { redactSecrets } from "../runtime/secrets.ts";
import { broadcast } from "./session-broadcast.ts";
import type { LiveSession } from "./live-session.ts";

const MAX_LENGTH = 60;

/** A short title from a prompt: its first line, cut at a word boundary (secrets hidden before the cut, which could leave half of one). */
export function titleFromPrompt(text: string): string | undefined {
  const line = redactSecrets(text).trim().split(/\r?\n/)[0]?.replace(/\s+/g, " ").trim();
  if (!line) return undefined;
  if (line.length <= MAX_LENGTH) return line;
  const cut = line.slice(0, MAX_LENGTH);
  const space = cut.lastIndexOf(" ");
  return `${(space > 20 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/**
 * Sets (or, with null, clears) the title: recorded, synced and announced to
 * every client of the session. With `ahead`, the caller does not wait for the
 * fsync (the recorder's next write does).
 */
export async function setTitle(live: LiveSession, title: string | null, options: { ahead?: boolean } = {}): Promise<void> {
  live.setTitle(title);
  if (options.ahead) live.recorder.writeAhead({ type: "title", title });
  else await live.recorder.write({ type: "title", title }, true);
  await broadcast(live, { type: "title", title, updatedAt: new Date().toISOString() });
}
