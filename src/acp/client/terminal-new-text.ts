/**
 * What of an editor terminal's output is new since the last read. The editor
 * keeps a bounded output and drops its start once over the limit, so the new
 * part is found after the tail seen last time. When that tail occurs more
 * than once (output that repeats), the first occurrence is used and a note
 * says some lines may repeat: repeating beats losing output.
 * @module
 */

/** What of the last output seen is remembered to find the new part after the editor dropped the start. */
export const OVERLAP_CHARS = 256;

/** What the last read saw (the editor's whole output then, at most its output limit). */
export interface SeenOutput {
  text: string;
}

/** Said before output that may repeat some already reported. */
export const MAY_REPEAT_NOTE = "[The editor dropped earlier output of this terminal; what follows may repeat some output already shown.]\n";

/** The new text of `output` after `seen`, and what to remember for the next read. */
export function newTerminalText(seen: SeenOutput, output: string, truncated: boolean): { fresh: string; seen: SeenOutput } {
  const next = { text: output };
  if (!truncated && output.length >= seen.text.length) return { fresh: output.slice(seen.text.length), seen: next };
  // The same text as last time: nothing happened (an idle terminal must not repeat itself on every read).
  if (output === seen.text) return { fresh: "", seen: next };
  const tail = seen.text.slice(-OVERLAP_CHARS);
  const first = tail === "" ? -1 : output.indexOf(tail);
  // The tail is gone: more was dropped than was seen; all that is left is new.
  if (first === -1) return { fresh: output, seen: next };
  const rest = output.slice(first + tail.length);
  const ambiguous = output.indexOf(tail, first + 1) !== -1;
  return { fresh: ambiguous && rest !== "" ? MAY_REPEAT_NOTE + rest : rest, seen: next };
}
