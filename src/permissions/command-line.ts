/**
 * What a `bash` command line runs, as far as acp-edge can account for it.
 * A line is accounted for only when the strict lexer read all of it and
 * each simple command is an ordinary program call: no leading
 * `NAME=value`, no shell keyword, no command that runs other commands
 * from its arguments (`eval`, `sh -c`, `xargs`, `sudo`, `find -exec`, …).
 * Only accounted lines can be allowed by rules or grants; for the others
 * the commands that might run are collected so deny rules still apply.
 * @module
 */
import { lexShellLine, type LexedCommand } from "./shell-lexer.ts";

/** One simple command: its words after quote removal. */
export interface SimpleCommand {
  words: string[];
  /** The words re-quoted canonically, e.g. `npm test` or `echo 'a b'`. */
  text: string;
  /** A wrapper's words (`sudo -u root rm x`): the command it runs may start at any of them. Only deny and ask rules look at these. */
  anyStart?: boolean;
}

/** A command line as the permission gate sees it. */
export interface CommandLine {
  /** The simple commands it runs (when accounted for), or those recognised in it (when not). */
  commands: SimpleCommand[];
  /** Why the line is not fully accounted for; empty when it is. */
  unaccounted: string[];
  /** Further commands that might run in an unaccounted line (behind wrappers, inside quoted strings); checked by deny and ask rules only. */
  possible: SimpleCommand[];
}

/** Shell keywords: they make the line more than a list of simple commands. */
const KEYWORDS = new Set([
  "if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while", "until", "for", "in", "select",
  "function", "time", "coproc", "!", "[[", "]]", "{", "}", "repeat", "foreach", "end", "nocorrect", "noglob",
]);

/** Commands that run other commands taken from their arguments or change how later ones are found or run. */
const RUNS_OTHER_COMMANDS = new Set([
  // shells and shell builtins
  "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "fish", "csh", "tcsh", "rbash", "busybox",
  "eval", "exec", "source", ".", "command", "builtin", "alias", "unalias", "trap", "enable", "hash",
  "set", "shopt", "setopt", "unsetopt", "export", "declare", "typeset", "local", "readonly", "unset",
  "emulate", "autoload", "zmodload", "fc", "coproc", "-",
  // wrappers that run their arguments as a command
  "env", "nohup", "sudo", "doas", "su", "runuser", "pkexec", "time", "nice", "ionice", "timeout", "stdbuf",
  "setsid", "xargs", "parallel", "watch", "chroot", "unshare", "nsenter", "flock", "script", "strace",
  "ltrace", "taskset", "chrt", "systemd-run", "firejail", "entr",
]);

/** `find` and `fd` options that run a command per file. */
const EXEC_OPTIONS: Record<string, Set<string>> = {
  find: new Set(["-exec", "-execdir", "-ok", "-okdir"]),
  fd: new Set(["-x", "-X", "--exec", "--exec-batch"]),
};

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;
const MAX_NESTING = 3;

/** Reads a `bash` command line: the simple commands it runs and whether all of it is accounted for. */
export function splitShellCommand(line: string): CommandLine {
  return analyse(line, 0);
}

function analyse(line: string, nesting: number): CommandLine {
  const lexed = lexShellLine(line);
  const unaccounted = new Set(lexed.unaccounted);
  const commands: SimpleCommand[] = [];
  const possible: SimpleCommand[] = [];
  for (const command of lexed.commands) {
    const words = effectiveWords(command, unaccounted);
    if (words.length === 0) continue;
    // bash and zsh read a command word starting with % (quoted or not) as a job to resume; a leading -
    // is zsh's precommand modifier, and a line starting with one is read by the shell as its options.
    if (words[0]!.startsWith("%")) unaccounted.add("a job reference (%…)");
    if (words[0]!.startsWith("-")) unaccounted.add("a command word starting with -");
    commands.push(simpleCommand(words));
    // Case-blind: on a case-insensitive file system `SUDO` runs sudo.
    const name = commandName(words[0]!).toLowerCase();
    const execOptions = EXEC_OPTIONS[name];
    if (RUNS_OTHER_COMMANDS.has(name) || (execOptions && words.some((w) => execOptions.has(w)))) {
      unaccounted.add(`${name} runs other commands`);
      possible.push(...wrappedCommands(words, nesting));
    }
  }
  if (unaccounted.size > 0 && nesting === 0) possible.push(...commandsInFragments(line));
  return { commands, unaccounted: [...unaccounted], possible };
}

/** The words from the command word on: leading assignments and keywords are skipped (and make the line unaccounted). */
function effectiveWords(command: LexedCommand, unaccounted: Set<string>): string[] {
  let start = 0;
  while (start < command.words.length) {
    const raw = command.raw[start]!;
    if (ASSIGNMENT.test(raw)) unaccounted.add("an environment assignment (NAME=value)");
    else if (KEYWORDS.has(raw)) unaccounted.add(`the shell keyword "${raw}"`);
    else break;
    start += 1;
  }
  return command.words.slice(start);
}

/** Any word of a wrapper may start the command it runs, and every argument may be a command line (`sh -c '…'`). */
function wrappedCommands(words: string[], nesting: number): SimpleCommand[] {
  const found: SimpleCommand[] = [{ ...simpleCommand(words.slice(1)), anyStart: true }];
  if (nesting < MAX_NESTING) {
    // An argument without blanks or shell syntax is only ever one command word, which the entry above covers.
    for (const argument of words.slice(1).filter((w) => /[\s;&|()<>`$'"\\]/.test(w))) {
      const inner = analyse(argument, nesting + 1);
      found.push(...inner.commands, ...inner.possible);
    }
  }
  return found;
}

/**
 * A coarse second reading for unaccounted lines: cut the raw text at every
 * quote, separator, bracket and backslash and read each piece as a command,
 * so a shell that splits the line differently than the lexer does still
 * meets the deny rules.
 */
function commandsInFragments(line: string): SimpleCommand[] {
  const found: SimpleCommand[] = [];
  for (const fragment of line.split(/[;&|()\n`{}'"<>\\#$]/)) {
    if (!fragment.trim()) continue;
    for (const command of lexShellLine(fragment).commands) {
      const words = effectiveWords(command, new Set());
      if (words.length > 0) found.push(simpleCommand(words));
    }
  }
  return found;
}

/** The name a command word runs, for rule matching: its last path segment (and without zsh's `=name` expansion sign). */
export function commandName(word: string): string {
  return word.slice(word.lastIndexOf("/") + 1).replace(/^=+/, "");
}

function simpleCommand(words: string[]): SimpleCommand {
  // Worked out on demand: lines with wrappers yield many candidate commands that only rules look at.
  let text: string | undefined;
  return {
    words,
    get text() {
      return (text ??= words.map(quoteWord).join(" "));
    },
  };
}

/** A word as it can be typed back: bare when it holds only safe characters, else single-quoted. */
export function quoteWord(word: string): string {
  if (/^[A-Za-z0-9_\-./:,+@%][A-Za-z0-9_\-./:,+@%=]*$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
