/**
 * Slash-command arguments, split like a shell would (quotes group words,
 * backslash escapes), and their substitution into prompt templates.
 * @module
 */

/** `a "b c" 'd e' f\ g` → ["a", "b c", "d e", "f g"]. */
export function splitArguments(text: string): string[] {
  const args: string[] = [];
  let current = "";
  let quote: "'" | '"' | undefined;
  let started = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"' && i + 1 < text.length) current += text[++i];
      else current += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      started = true;
    } else if (c === "\\" && i + 1 < text.length) {
      current += text[++i];
      started = true;
    } else if (/\s/.test(c)) {
      if (started) args.push(current);
      current = "";
      started = false;
    } else {
      current += c;
      started = true;
    }
  }
  if (started) args.push(current);
  return args;
}

/**
 * Fills `$1`…`$N` with positional arguments (missing ones become empty),
 * `$@` with all of them joined by spaces, and `$ARGUMENTS` with the raw
 * argument text as typed.
 */
export function expandTemplate(body: string, rawArguments: string): string {
  const args = splitArguments(rawArguments);
  return body
    .replace(/\$ARGUMENTS\b/g, () => rawArguments.trim())
    .replace(/\$@/g, () => args.join(" "))
    .replace(/\$(\d+)/g, (_match, index: string) => args[Number(index) - 1] ?? "");
}

/** `/name rest of line` → { name, rest }, or undefined when the text is not a command. */
export function parseSlashCommand(text: string): { name: string; rest: string } | undefined {
  const match = /^\/([A-Za-z0-9][\w:.-]*)(?:\s+([\s\S]*))?$/.exec(text.trim());
  return match ? { name: match[1]!, rest: match[2] ?? "" } : undefined;
}
