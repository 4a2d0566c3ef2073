/**
 * Splitting a shell command line into the simple commands it runs, so a
 * rule for `npm test` cannot be stretched to `npm test && rm -rf ~`.
 * Quotes and escapes are honoured; anything this scanner cannot see
 * through (command substitution, redirections) is flagged.
 * @module
 */

export interface CommandLine {
  /** The simple commands, trimmed, in order. */
  segments: string[];
  /** `$(…)`, backticks or process substitution: the line runs more than its segments show. */
  substitution: boolean;
  /** `>` or `<` outside quotes: the line reads or writes files besides running commands. */
  redirection: boolean;
}

export function parseCommandLine(command: string): CommandLine {
  const segments: string[] = [];
  let current = "";
  let quote: "'" | '"' | undefined;
  let substitution = false;
  let redirection = false;
  const flush = () => {
    const trimmed = current.trim();
    if (trimmed) segments.push(trimmed);
    current = "";
  };
  for (let i = 0; i < command.length; i += 1) {
    const c = command[i]!;
    const next = command[i + 1];
    if (quote === "'") {
      current += c;
      if (c === "'") quote = undefined;
      continue;
    }
    if (c === "\\" && next !== undefined) {
      current += c + next;
      i += 1;
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = undefined;
      if (c === "`" || (c === "$" && next === "(")) substitution = true;
      current += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      current += c;
      continue;
    }
    if (c === "`" || (c === "$" && next === "(") || ((c === "<" || c === ">") && next === "(")) substitution = true;
    if (c === ">" || c === "<") redirection = true;
    if (c === ";" || c === "\n" || c === "|" || c === "&") {
      // `&&`, `||`, `|&` are one operator; `&>`/`>&` are redirections, not separators.
      if ((c === "&" && (next === ">" || command[i - 1] === ">")) ) {
        current += c;
        continue;
      }
      flush();
      if ((c === "&" && next === "&") || (c === "|" && (next === "|" || next === "&"))) i += 1;
      continue;
    }
    current += c;
  }
  flush();
  return { segments, substitution, redirection };
}

/** Whether `segment` starts with `prefix` at a word boundary (`npm test` covers `npm test --watch`, not `npm tester`). */
export function commandStartsWith(segment: string, prefix: string): boolean {
  const wanted = prefix.trim();
  if (wanted.endsWith("*")) return segment.startsWith(wanted.slice(0, -1));
  return segment === wanted || segment.startsWith(`${wanted} `) || segment.startsWith(`${wanted}\t`);
}
