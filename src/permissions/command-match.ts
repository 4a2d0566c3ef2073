/**
 * Whether a command rule or grant (`npm test`, `rm -rf`) covers one simple
 * command. Allowing is exact: the same command word and the same leading
 * arguments, word by word after quote removal. Refusing (deny and ask) is
 * loose, so other spellings of the same call are caught too: the command's
 * name by basename and in any letter case, and each further rule word
 * anywhere among the arguments, short options letter by letter and in any
 * case (`rm -rf` also matches `rm -r -f`, `rm -fr`, `/bin/rm -Rfv`).
 * @module
 */
import { commandName, type SimpleCommand } from "./command-line.ts";
import { lexShellLine } from "./shell-lexer.ts";

/** A rule's or grant's command text, read as words. */
export interface CommandPattern {
  words: string[];
  /** A trailing `*` right after the last word: that word matches as a prefix (`npm run test*`). */
  lastIsPrefix: boolean;
  /** The text is one plain simple command the lexer accounts for (required for allowing). */
  accounted: boolean;
}

const patterns = new Map<string, CommandPattern | undefined>();
const MAX_CACHED_PATTERNS = 1000;

/** Reads a rule's or grant's command text; undefined when it names no command. Rules are few and read often, so readings are kept. */
export function readCommandPattern(text: string): CommandPattern | undefined {
  if (patterns.has(text)) return patterns.get(text);
  if (patterns.size >= MAX_CACHED_PATTERNS) patterns.clear();
  const pattern = parseCommandPattern(text);
  patterns.set(text, pattern);
  return pattern;
}

function parseCommandPattern(text: string): CommandPattern | undefined {
  let body = text.trim();
  let lastIsPrefix = false;
  if (body.endsWith("*")) {
    body = body.slice(0, -1);
    lastIsPrefix = body !== "" && !/\s$/.test(body);
    body = body.trim();
  }
  const lexed = lexShellLine(body);
  const words = lexed.commands[0]?.words;
  if (!words || words.length === 0) return undefined;
  return { words, lastIsPrefix, accounted: lexed.unaccounted.length === 0 && lexed.commands.length === 1 };
}

function wordMatches(actual: string, wanted: string, prefix: boolean): boolean {
  return prefix ? actual.startsWith(wanted) : actual === wanted;
}

/** An allow covers a command that starts with exactly the pattern's words (`npm test` covers `npm test --watch`, not `npm tester` or `./npm test`). */
export function allowCovers(command: SimpleCommand, pattern: CommandPattern): boolean {
  if (!pattern.accounted || command.words.length < pattern.words.length) return false;
  const last = pattern.words.length - 1;
  return pattern.words.every((wanted, i) => wordMatches(command.words[i]!, wanted, i === last && pattern.lastIsPrefix));
}

const SHORT_OPTIONS = /^-[A-Za-z0-9]+$/;

/** A deny or ask covers every spelling it can recognise: see the module comment. */
export function refusalCovers(command: SimpleCommand, pattern: CommandPattern): boolean {
  const last = pattern.words.length - 1;
  const wantedName = commandName(pattern.words[0]!).toLowerCase();
  const named = (word: string) => wordMatches(commandName(word).toLowerCase(), wantedName, last === 0 && pattern.lastIsPrefix);
  // Behind a wrapper the earliest word naming the command is enough: the arguments after it include those after any later one.
  const start = command.anyStart ? command.words.findIndex(named) : command.words.length > 0 && named(command.words[0]!) ? 0 : -1;
  if (start < 0) return false;
  const args = command.words.slice(start + 1);
  // Letters compare case-blind: `rm -Rf` is `rm -rf`, and a refusal may be broader than needed but not narrower.
  const letters = new Set(args.filter((a) => SHORT_OPTIONS.test(a)).flatMap((a) => [...a.slice(1).toLowerCase()]));
  return pattern.words.slice(1).every((wanted, index) => {
    const prefix = index + 1 === last && pattern.lastIsPrefix;
    if (SHORT_OPTIONS.test(wanted) && !prefix) return [...wanted.slice(1).toLowerCase()].every((letter) => letters.has(letter));
    return args.some((a) => wordMatches(a, wanted, prefix));
  });
}
