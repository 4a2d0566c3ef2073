/**
 * A strict lexer for one shell command line. It accounts fully for a small
 * subset — plain words, single quotes, double quotes without expansions,
 * backslash escapes, the separators `;` `&&` `||` `|` `&` and newlines, and
 * the redirections `N>&M` and `>/dev/null` — and names everything else it
 * meets as unaccounted. It still reads past what it cannot account for
 * (into `$(…)`, subshells, ANSI-C quotes, past comments) the way bash
 * would, so deny rules can see the commands it recognises there.
 * @module
 */

/** One simple command the lexer recognised. */
export interface LexedCommand {
  /** Its words after quote removal (leading assignments and keywords included). */
  words: string[];
  /** The same words as written, quotes and escapes included. */
  raw: string[];
}

/** A command line as the lexer read it. */
export interface LexedLine {
  /** Every simple command recognised, including those inside substitutions and subshells. */
  commands: LexedCommand[];
  /** Why the line is not fully accounted for (one entry per kind of construct); empty when it is. */
  unaccounted: string[];
}

/** Characters a plain (unquoted) word may hold in the accounted subset. */
const SAFE_CHAR = /[A-Za-z0-9_\-./:,+@%=]/;
const MAX_DEPTH = 16;

interface Word {
  value: string;
  raw: string;
  /** Only unquoted, unescaped characters so far (what an IO number or keyword needs). */
  plain: boolean;
}

interface Command {
  words: string[];
  raw: string[];
  redirected: boolean;
}

/** Reads `line` and returns the simple commands it runs and what it could not account for. */
export function lexShellLine(line: string): LexedLine {
  const lexer = new Lexer(line, 0, new Set(), []);
  // A NUL ends the argument the shell receives: what runs would be a prefix of what was read.
  if (line.includes("\0")) lexer.problems.add("a NUL character");
  lexer.parseList(undefined);
  return { commands: lexer.commands, unaccounted: [...lexer.problems] };
}

class Lexer {
  private pos = 0;

  constructor(
    private readonly src: string,
    private readonly depth: number,
    readonly problems: Set<string>,
    readonly commands: LexedCommand[],
  ) {}

  private problem(what: string): void {
    this.problems.add(what);
  }

  /** Commands up to the end, or up to the `)` that closes a `(`, `$(`, `<(` opened by the caller. */
  parseList(closer: ")" | undefined): void {
    if (this.depth > MAX_DEPTH) {
      this.problem("nesting too deep to follow");
      this.pos = this.src.length;
      return;
    }
    let command: Command = { words: [], raw: [], redirected: false };
    let word: Word | undefined;
    const endWord = () => {
      if (!word) return;
      command.words.push(word.value);
      command.raw.push(word.raw);
      word = undefined;
    };
    const endCommand = (separator: string) => {
      endWord();
      if (command.words.length > 0) this.commands.push({ words: command.words, raw: command.raw });
      else if (command.redirected) this.problem("a redirection without a command");
      else if (separator !== "\n" && separator !== "end") this.problem(`"${separator}" without a command before it`);
      command = { words: [], raw: [], redirected: false };
    };
    const src = this.src;
    while (this.pos < src.length) {
      const c = src[this.pos]!;
      const next = src[this.pos + 1];
      if (c === " " || c === "\t") {
        endWord();
        this.pos += 1;
      } else if (c === "\n") {
        endCommand("\n");
        this.pos += 1;
      } else if (c === ")") {
        this.pos += 1;
        if (closer === ")") {
          endCommand("end");
          return;
        }
        this.problem("an unmatched )");
        endCommand("end");
      } else if (c === "(") {
        this.problem("a subshell or parentheses");
        endCommand("end");
        this.pos += 1;
        this.nestedList();
      } else if (c === ";") {
        if (next === ";" || next === "&" || next === "|") this.problem(`"${c}${next}"`);
        endCommand(";");
        this.pos += next === ";" ? 2 : 1;
      } else if (c === "&" && next === "&") {
        endCommand("&&");
        this.pos += 2;
      } else if (c === "&" && next === ">") {
        endWord();
        this.redirection(command, undefined);
      } else if (c === "&") {
        endCommand("&");
        this.pos += 1;
      } else if (c === "|") {
        if (next === "&") this.problem('"|&"');
        endCommand(next === "|" ? "||" : "|");
        this.pos += next === "|" || next === "&" ? 2 : 1;
      } else if (c === "<" || c === ">") {
        let fd: string | undefined;
        if (word?.plain && /^\d+$/.test(word.value)) {
          fd = word.value;
          word = undefined;
        }
        endWord();
        this.redirection(command, fd);
      } else if (c === "#" && !word) {
        this.problem("a comment (#)");
        while (this.pos < src.length && src[this.pos] !== "\n") this.pos += 1;
      } else {
        word ??= { value: "", raw: "", plain: true };
        const start = this.pos;
        this.wordPart(word);
        word.raw += src.slice(start, this.pos);
      }
    }
    if (closer) this.problem("an unclosed (");
    endCommand("end");
  }

  /** The commands up to the `)` closing a construct just opened, one level deeper. */
  private nestedList(): void {
    const inner = new Lexer(this.src, this.depth + 1, this.problems, this.commands);
    inner.pos = this.pos;
    inner.parseList(")");
    this.pos = inner.pos;
  }

  /** One piece of a word: a character, a quoted string, an escape or an expansion. */
  private wordPart(word: Word): void {
    const src = this.src;
    const c = src[this.pos]!;
    const next = src[this.pos + 1];
    if (c === "'") {
      word.plain = false;
      const end = src.indexOf("'", this.pos + 1);
      if (end < 0) {
        this.problem("an unbalanced single quote");
        word.value += src.slice(this.pos + 1);
        this.pos = src.length;
        return;
      }
      word.value += src.slice(this.pos + 1, end);
      this.pos = end + 1;
    } else if (c === '"') {
      word.plain = false;
      this.pos += 1;
      this.doubleQuoted(word);
    } else if (c === "\\") {
      word.plain = false;
      if (next === undefined) {
        this.problem("a trailing backslash");
        this.pos += 1;
      } else if (next === "\n") {
        this.problem("a line continuation (backslash-newline)");
        this.pos += 2;
      } else {
        word.value += next;
        this.pos += 2;
      }
    } else if (c === "$") {
      word.plain = false;
      this.dollar(word, false);
    } else if (c === "`") {
      word.plain = false;
      this.backticks(word);
    } else {
      if (c === "*" || c === "?" || c === "[" || c === "]") this.problem("a glob pattern");
      else if (c === "{" || c === "}") this.problem("braces");
      else if (c === "~") this.problem("a tilde");
      else if (c === "!" || c === "^") this.problem(`"${c}" outside quotes`);
      else if (c === "#") this.problem("a # inside a word");
      else if (c === "=" && word.value === "" && word.raw === "") this.problem("a word starting with =");
      else if (!SAFE_CHAR.test(c)) this.problem("an unusual character outside quotes");
      word.value += c;
      this.pos += 1;
    }
  }

  /** The inside of `"…"`, from after the opening quote to after the closing one. */
  private doubleQuoted(word: Word): void {
    const src = this.src;
    while (this.pos < src.length) {
      const c = src[this.pos]!;
      const next = src[this.pos + 1];
      if (c === '"') {
        this.pos += 1;
        return;
      }
      if (c === "\\" && next !== undefined) {
        if (next === "\n") this.problem("a line continuation (backslash-newline)");
        else if (next === '"' || next === "\\" || next === "$" || next === "`") word.value += next;
        else word.value += c + next;
        this.pos += 2;
      } else if (c === "$") {
        this.dollar(word, true);
      } else if (c === "`") {
        this.backticks(word);
      } else {
        if (c === "!") this.problem('"!" inside double quotes');
        word.value += c;
        this.pos += 1;
      }
    }
    this.problem("an unbalanced double quote");
  }

  /** Anything starting with `$`: expansions and the `$'…'`/`$"…"` quotings. */
  private dollar(word: Word, inDoubleQuotes: boolean): void {
    const src = this.src;
    const next = src[this.pos + 1];
    if (next === "'" && !inDoubleQuotes) {
      this.problem("ANSI-C quoting ($'…')");
      this.pos += 2;
      word.value += this.ansiC();
    } else if (next === '"' && !inDoubleQuotes) {
      this.problem('locale quoting ($"…")');
      this.pos += 2;
      this.doubleQuoted(word);
    } else if (next === "(") {
      this.problem("command substitution ($(…))");
      this.pos += 2;
      this.nestedList();
      word.value += "$(…)";
    } else if (next === "{") {
      this.problem("parameter expansion (${…})");
      let depth = 0;
      let i = this.pos + 1;
      for (; i < src.length; i += 1) {
        if (src[i] === "{") depth += 1;
        else if (src[i] === "}" && --depth === 0) break;
      }
      word.value += src.slice(this.pos, i + 1);
      this.pos = Math.min(i + 1, src.length);
    } else {
      const name = /^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/.exec(src.slice(this.pos + 1, this.pos + 256))?.[0] ?? "";
      this.problem(name ? "variable expansion ($NAME)" : 'a "$" outside single quotes');
      word.value += `$${name}`;
      this.pos += 1 + name.length;
    }
  }

  /** The inside of `$'…'`, decoded the way bash does for the common escapes. */
  private ansiC(): string {
    const src = this.src;
    const escapes: Record<string, string> = { n: "\n", t: "\t", r: "\r", a: "\x07", b: "\b", e: "\x1b", E: "\x1b", f: "\f", v: "\v" };
    let value = "";
    while (this.pos < src.length) {
      const c = src[this.pos]!;
      if (c === "'") {
        this.pos += 1;
        return value;
      }
      if (c === "\\" && this.pos + 1 < src.length) {
        const e = src[this.pos + 1]!;
        const hex = /^x([0-9A-Fa-f]{1,2})/.exec(src.slice(this.pos + 1, this.pos + 4));
        const octal = /^[0-7]{1,3}/.exec(src.slice(this.pos + 1, this.pos + 4));
        if (hex) {
          value += String.fromCharCode(parseInt(hex[1]!, 16));
          this.pos += 1 + hex[0].length;
        } else if (octal) {
          value += String.fromCharCode(parseInt(octal[0], 8));
          this.pos += 1 + octal[0].length;
        } else {
          value += escapes[e] ?? e;
          this.pos += 2;
        }
      } else {
        value += c;
        this.pos += 1;
      }
    }
    this.problem("an unbalanced $'…' quote");
    return value;
  }

  /** `` `…` ``: the commands inside are read as a line of their own. */
  private backticks(word: Word): void {
    const src = this.src;
    this.problem("command substitution (backticks)");
    let inner = "";
    let i = this.pos + 1;
    for (; i < src.length && src[i] !== "`"; i += 1) {
      if (src[i] === "\\" && i + 1 < src.length) {
        i += 1;
        inner += src[i] === "`" || src[i] === "\\" || src[i] === "$" ? src[i] : `\\${src[i]}`;
      } else inner += src[i];
    }
    if (i >= src.length) this.problem("an unbalanced backtick");
    this.pos = Math.min(i + 1, src.length);
    if (this.depth < MAX_DEPTH) new Lexer(inner, this.depth + 1, this.problems, this.commands).parseList(undefined);
    else this.problem("nesting too deep to follow");
    word.value += "`…`";
  }

  /** A redirection operator at `pos` (after its optional fd) and its target word. */
  private redirection(command: Command, fd: string | undefined): void {
    const src = this.src;
    command.redirected = true;
    const op = /^(?:&>>|&>|<<<|<<-|<<|<>|<&|<\(|<|>>|>\||>&|>\(|>)/.exec(src.slice(this.pos, this.pos + 3))![0];
    this.pos += op.length;
    if (op === "<(" || op === ">(") {
      this.problem("process substitution (<(…) or >(…))");
      this.nestedList();
      return;
    }
    while (src[this.pos] === " " || src[this.pos] === "\t") this.pos += 1;
    const target: Word = { value: "", raw: "", plain: true };
    while (this.pos < src.length && !/[\s;&|<>()]/.test(src[this.pos]!)) {
      const start = this.pos;
      this.wordPart(target);
      target.raw += src.slice(start, this.pos);
    }
    if (target.raw === "") {
      this.problem("a redirection without a target");
      return;
    }
    if (op === "<<" || op === "<<-") this.problem("a here-document");
    else if (op === "<<<") this.problem("a here-string");
    else if ((op === ">&" || op === "<&") && target.plain && /^\d+$/.test(target.value)) return;
    else if ((op === ">" || op === ">>" || op === "<") && target.value === "/dev/null") return;
    else this.problem(`a redirection (${fd ?? ""}${op} ${target.raw})`);
  }
}
