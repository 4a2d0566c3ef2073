/**
 * Questions on a terminal in raw mode, with the little line editing people
 * expect (backspace, Ctrl-U) and a secret mode that shows nothing at all,
 * not even the length. Ctrl-C, Ctrl-D on an empty line and the end of the
 * input cancel. Escape sequences (arrow keys, bracketed paste markers) are
 * dropped; text pasted with several lines answers the next questions.
 * @module
 */
import type { RawTerminalInput } from "../runtime/host/terminal-input.ts";
import { writePrompt } from "../runtime/host/terminal-input.ts";

const CTRL_C = 0x03;
const CTRL_D = 0x04;
const BACKSPACE = 0x08;
const CTRL_U = 0x15;
const ESC = 0x1b;
const DELETE = 0x7f;

/** Asks questions on a terminal; `ask` resolves undefined when the person cancels. */
export class TerminalPrompt {
  readonly #input: RawTerminalInput;
  /** Bytes received but not yet consumed (a paste longer than one answer). */
  #pending: number[] = [];
  #lastWasCarriageReturn = false;

  constructor(input: RawTerminalInput) {
    this.#input = input;
  }

  /** Writes text for the person (a question, a result). */
  say(text: string): void {
    writePrompt(text);
  }

  /** Asks `question` and reads one line; `secret` answers are never shown. */
  async ask(question: string, options: { secret?: boolean } = {}): Promise<string | undefined> {
    writePrompt(question);
    const line: number[] = [];
    const echo = (text: string) => {
      if (!options.secret) writePrompt(text);
    };
    for (;;) {
      const byte = await this.#nextByte();
      if (byte === undefined || byte === CTRL_C || (byte === CTRL_D && line.length === 0)) {
        writePrompt("\n");
        return undefined;
      }
      const wasCarriageReturn = this.#lastWasCarriageReturn;
      this.#lastWasCarriageReturn = byte === 0x0d;
      if (byte === 0x0a && wasCarriageReturn) continue; // the second half of a CR LF
      if (byte === 0x0d || byte === 0x0a) {
        writePrompt("\n");
        return new TextDecoder().decode(new Uint8Array(line));
      }
      if (byte === BACKSPACE || byte === DELETE) {
        if (removeLastCharacter(line)) echo("\b \b");
      } else if (byte === CTRL_U) {
        echo("\b \b".repeat(characterCount(line)));
        line.length = 0;
      } else if (byte === ESC) {
        await this.#skipEscapeSequence();
      } else if (byte >= 0x20) {
        line.push(byte);
        // A character is shown once its last byte arrived.
        if (byte < 0x80 || isLastByteOfCharacter(line)) echo(new TextDecoder().decode(new Uint8Array(line.slice(lastCharacterStart(line)))));
      }
    }
  }

  /** Asks a yes/no question; the empty answer is `yes`. */
  async confirm(question: string): Promise<boolean> {
    const answer = await this.ask(`${question} [Y/n] `);
    return answer !== undefined && !/^\s*n/i.test(answer);
  }

  async #nextByte(): Promise<number | undefined> {
    while (this.#pending.length === 0) {
      const chunk = await this.#input.next();
      if (chunk === undefined) return undefined;
      for (const byte of chunk) this.#pending.push(byte);
    }
    return this.#pending.shift();
  }

  /** CSI (`ESC [` … final byte) and SS3 (`ESC O` x) sequences; a lone ESC is dropped by itself. */
  async #skipEscapeSequence(): Promise<void> {
    const kind = this.#pending[0];
    if (kind === 0x5b) {
      this.#pending.shift();
      for (;;) {
        const byte = await this.#nextByte();
        if (byte === undefined || (byte >= 0x40 && byte <= 0x7e)) return;
      }
    }
    if (kind === 0x4f) this.#pending.splice(0, 2);
  }
}

/** Index of the first byte of the last UTF-8 character in `line`. */
function lastCharacterStart(line: number[]): number {
  let start = line.length - 1;
  while (start > 0 && (line[start]! & 0xc0) === 0x80) start--;
  return start;
}

/** Whether `line` ends with a complete multi-byte UTF-8 character. */
function isLastByteOfCharacter(line: number[]): boolean {
  const start = lastCharacterStart(line);
  const lead = line[start]!;
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return line.length - start === length;
}

function removeLastCharacter(line: number[]): boolean {
  if (line.length === 0) return false;
  line.length = lastCharacterStart(line);
  return true;
}

function characterCount(line: number[]): number {
  return line.filter((byte) => (byte & 0xc0) !== 0x80).length;
}
