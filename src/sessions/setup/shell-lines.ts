/**
 * Shell lines in command files and skills: Claude Code runs each
 * ``!`command` `` before sending the prompt and puts its output in its place.
 * A file that came with a repository must not run anything here, so they are
 * never run: the text reaches the model as written, followed by a note that
 * says so, and the user is told once per command.
 * @module
 */

/** ``!`git status` `` anywhere in the text. */
const SHELL_MARK = /!`([^`\n]+)`/g;
const MAX_SHOWN = 5;

/** The commands marked to run in `text`, in order, each once. */
export function shellLines(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(SHELL_MARK)) if (!found.includes(match[1]!)) found.push(match[1]!);
  return found;
}

/** The note for the model when `text` marks shell commands, or undefined when it marks none. */
export function shellLinesNote(text: string): string | undefined {
  const lines = shellLines(text);
  if (lines.length === 0) return undefined;
  const shown = lines.slice(0, MAX_SHOWN).map((l) => `\`${l}\``).join(", ") + (lines.length > MAX_SHOWN ? ` and ${lines.length - MAX_SHOWN} more` : "");
  return `[Not run: acp-edge does not run the shell commands a command file or skill marks with !\`…\` (${shown}); their output is not included above.]`;
}
