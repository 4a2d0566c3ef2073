/**
 * Command output accounting in bounded memory: counts every line and byte,
 * keeps only a tail window big enough for the 2000-line / 50 KiB result, and
 * once the output outgrows that, streams all of it (from the start) to a
 * temp file that the result can name.
 * @module
 */
import { removeFile } from "../../runtime/files/fs.ts";
import { processTempDirectory } from "../../runtime/process/process-temp.ts";
import { createTempFile, type TempFile } from "../../runtime/files/temp-file.ts";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, truncateTail, utf8Length } from "../truncate.ts";

/** Limits of the kept tail (default 2000 lines / 50 KiB). */
export interface OutputBufferOptions {
  maxLines?: number;
  maxBytes?: number;
  /** Where the full output goes once it is truncated (default: the process's private temp directory, removed at exit). */
  createFile?: () => Promise<TempFile>;
}

/** What is left of a command's output once it has ended. */
export interface OutputSummary {
  /** The tail (at most maxLines / maxBytes), without the final newline. */
  output: string;
  truncated: boolean;
  /** The whole output, when it was truncated and the file could be written. */
  fullOutputPath?: string;
  /** Lines as a reader counts them: a final newline ends the last line, it does not start another. */
  totalLines: number;
  totalBytes: number;
}

/** Name prefix of saved full-output files. */
export const FULL_OUTPUT_PREFIX = "acp-edge-bash-";

/** Text is kept in pieces of at most this many UTF-16 units, so the window drops in small steps. */
const PIECE_LENGTH = 8 * 1024;

/**
 * Feed it decoded text with `push` (awaiting each call, so file writes pace
 * the producer), then call `finish` once.
 */
export class OutputBuffer {
  readonly #maxLines: number;
  readonly #maxBytes: number;
  readonly #createFile: () => Promise<TempFile>;
  /** UTF-16 units to keep: one unit is at least one byte, so this always covers `maxBytes` bytes plus the cut. */
  readonly #keep: number;
  readonly #encoder = new TextEncoder();
  #pieces: string[] = [];
  #retained = 0;
  /** The window no longer starts at the start of the output. */
  #cut = false;
  #totalBytes = 0;
  #newlines = 0;
  #endsWithNewline = false;
  #file: TempFile | undefined;
  #fileState: "none" | "open" | "failed" = "none";
  #writes: Promise<void> = Promise.resolve();
  /** A high surrogate that ended the last chunk, held until its pair arrives so bytes are counted and written right. */
  #carry = "";

  constructor(options: OutputBufferOptions = {}) {
    this.#maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
    this.#maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.#createFile = options.createFile ?? (() => createTempFile(FULL_OUTPUT_PREFIX, processTempDirectory()));
    this.#keep = this.#maxBytes + 1;
  }

  /** UTF-8 bytes seen so far. */
  get totalBytes(): number {
    return this.#totalBytes;
  }

  get totalLines(): number {
    if (this.#totalBytes === 0) return 0;
    return this.#newlines + (this.#endsWithNewline ? 0 : 1);
  }

  /** UTF-16 units held in memory: stays under maxBytes + 8 Ki however large the output. */
  get retainedLength(): number {
    return this.#retained;
  }

  /** Adds output; the promise settles when it has reached the full-output file (if one is in use). */
  push(text: string): Promise<void> {
    text = this.#carry + text;
    this.#carry = "";
    const last = text.charCodeAt(text.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.#carry = text.slice(-1);
      text = text.slice(0, -1);
    }
    return this.#add(text);
  }

  #add(text: string): Promise<void> {
    if (text === "") return this.#writes;
    this.#totalBytes += utf8Length(text);
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) this.#newlines++;
    this.#endsWithNewline = text.endsWith("\n");
    if (this.#fileState === "none" && this.#overLimits()) {
      // Nothing has left the window yet (it holds more than the limits), so it is the whole output so far.
      const head = this.#pieces.join("");
      this.#fileState = "open";
      this.#chain(async () => {
        this.#file = await this.#createFile();
        await this.#file.append(this.#encoder.encode(head));
      });
    }
    for (let i = 0; i < text.length; i += PIECE_LENGTH) this.#pieces.push(text.slice(i, i + PIECE_LENGTH));
    this.#retained += text.length;
    while (this.#pieces.length > 1 && this.#retained - (this.#pieces[0]?.length ?? 0) >= this.#keep) {
      this.#retained -= this.#pieces.shift()?.length ?? 0;
      this.#cut = true;
    }
    if (this.#fileState === "open") this.#chain(async () => await this.#file?.append(this.#encoder.encode(text)));
    return this.#writes;
  }

  /** Waits for the file, closes it and works out the tail. */
  async finish(): Promise<OutputSummary> {
    const carry = this.#carry;
    this.#carry = "";
    await this.#add(carry);
    let fullOutputPath: string | undefined;
    if (this.#file) {
      try {
        await this.#file.close();
        if (this.#fileState === "open") fullOutputPath = this.#file.path;
      } catch {
        // The tail is still right; only the pointer to the rest is lost.
      }
      // A file with a gap would mislead whoever reads it.
      if (!fullOutputPath) await removeFile(this.#file.path).catch(() => {});
    }
    let text = this.#pieces.join("");
    if (this.#endsWithNewline) text = text.slice(0, -1);
    if (this.#cut) {
      // The window starts mid-line; that line cannot be shown whole, unless it is the only (last) one.
      const newline = text.indexOf("\n");
      if (newline !== -1) text = text.slice(newline + 1);
    }
    const tail = truncateTail(text, { maxLines: this.#maxLines, maxBytes: this.#maxBytes });
    const truncated = this.#cut || tail.truncated;
    return {
      output: tail.content,
      truncated,
      ...(truncated && fullOutputPath ? { fullOutputPath } : {}),
      totalLines: this.totalLines,
      totalBytes: this.#totalBytes,
    };
  }

  #overLimits(): boolean {
    const contentBytes = this.#totalBytes - (this.#endsWithNewline ? 1 : 0);
    return contentBytes > this.#maxBytes || this.totalLines > this.#maxLines;
  }

  #chain(step: () => Promise<void>): void {
    this.#writes = this.#writes.then(async () => {
      if (this.#fileState !== "open") return;
      try {
        await step();
      } catch {
        // A full disk must not fail the command; the result just names no file.
        this.#fileState = "failed";
      }
    });
  }
}
