/**
 * Markdown text written block by block for the `fetch` tool's converter:
 * blank lines between blocks (never more than one), line prefixes for list
 * items and quotes, whitespace collapsed as a browser shows it, and breaks
 * turned into spaces where Markdown allows none (headings, link texts, table
 * cells). Indentation stops growing after MAX_INDENT levels, so a page of
 * thousands of nested lists costs output in proportion to its text.
 * @module
 */

/** Nesting levels (lists, quotes) that still add to a line's prefix. */
const MAX_INDENT = 8;

export class MarkdownWriter {
  private readonly parts: string[] = [];
  /** Characters written so far. */
  length = 0;
  private prefixes: string[] = [];
  private prefix = "";
  /** Nesting levels past MAX_INDENT (they add nothing to the prefix). */
  private deeper = 0;
  private blankPrefix = "";
  /** Newlines owed before the next content (at most 2: one blank line); the first line is owed its prefix. */
  private owed = 1;
  private lineEmpty = true;
  private spaceOwed = false;
  /** A list marker to write at the start of the next line, after the enclosing prefix. */
  private marker: { prefix: string; text: string } | undefined;
  /** Above 0 inside a heading, link text or table cell: breaks become spaces. */
  private inline = 0;

  constructor(private readonly limit: number) {}

  /** True once more than the limit was written: the caller stops. */
  get full(): boolean {
    return this.length > this.limit;
  }

  /** Asks for `lines` line breaks (2: a blank line) before the next content. */
  block(lines: 1 | 2): void {
    if (this.inline > 0) {
      this.spaceOwed = true;
      return;
    }
    if (this.length === 0 && !this.marker) return;
    // The blank line takes the prefix of where it was asked for (before a quote begins, not inside it).
    if (this.owed === 0) this.blankPrefix = this.prefix;
    this.owed = Math.max(this.owed, lines);
  }

  /** Page text, whitespace collapsed, escaped so that it cannot form links or code (see escapeText). */
  text(text: string): void {
    const collapsed = escapeText(text.replace(/[\s\u00a0]+/g, " "));
    if (collapsed === " ") {
      if (!this.lineEmpty) this.spaceOwed = true;
      return;
    }
    if (collapsed === "") return;
    if (collapsed.startsWith(" ") && !this.lineEmpty) this.spaceOwed = true;
    const trimmed = collapsed.trim();
    this.write(trimmed);
    if (collapsed.endsWith(" ")) this.spaceOwed = true;
  }

  /** Markup (`**`, `[`, `](url)`): written as is, after owed breaks and spaces. */
  write(markup: string): void {
    this.startLine();
    if (this.spaceOwed && !this.lineEmpty) this.emit(" ");
    this.spaceOwed = false;
    this.emit(markup);
    this.lineEmpty = false;
  }

  /** An inline code span: kept apart from a span just before it, which would otherwise run into one. */
  code(span: string): void {
    if (this.parts.at(-1)?.endsWith("`")) this.spaceOwed = true;
    this.write(span);
  }

  /** Markup that closes an inline span (`**`, `](url)`): no space owed goes before it, it goes after. */
  close(markup: string): void {
    const space = this.spaceOwed;
    this.spaceOwed = false;
    this.emit(markup);
    this.spaceOwed = space;
  }

  /** Lines written as they are (a code block's content), each behind the current prefix. */
  lines(text: string): void {
    this.startLine();
    this.emit(text.replace(/\r\n?/g, "\n").replaceAll("\n", `\n${this.prefix}`));
    this.lineEmpty = false;
  }

  /** A forced line break (`<br>`), or a space where breaks are not allowed. */
  lineBreak(): void {
    if (this.inline > 0 || this.lineEmpty) this.spaceOwed = !this.lineEmpty;
    else this.owed = Math.max(this.owed, 1);
  }

  /** Starts a list item: its marker goes before the next content; later lines are indented by its width. */
  listItem(marker: string): void {
    this.block(1);
    this.marker = { prefix: this.prefix, text: marker };
    this.pushPrefix(" ".repeat(marker.length));
  }

  pushPrefix(prefix: string): void {
    // Levels past MAX_INDENT are only counted: the prefix stays as it is.
    if (this.prefixes.length < MAX_INDENT) {
      this.prefixes.push(prefix);
      this.prefix += prefix;
    } else this.deeper++;
  }

  popPrefix(): void {
    if (this.deeper > 0) this.deeper--;
    else if (this.prefixes.length > 0) this.prefix = this.prefix.slice(0, this.prefix.length - this.prefixes.pop()!.length);
    if (this.blankPrefix.length > this.prefix.length) this.blankPrefix = this.prefix;
    this.marker = undefined;
  }

  /** True inside a heading, link text or table cell, where a block (a code block) cannot begin. */
  get inInline(): boolean {
    return this.inline > 0;
  }

  enterInline(): void {
    this.inline++;
  }

  leaveInline(): void {
    this.inline--;
  }

  /** Index into the written parts, to learn later whether anything was written since. */
  mark(): number {
    return this.parts.length;
  }

  /** Removes what was written since `mark` (an empty link or emphasis leaves no markup behind). */
  dropSince(mark: number): void {
    while (this.parts.length > mark) this.length -= this.parts.pop()!.length;
  }

  toString(): string {
    return this.parts.join("");
  }

  private startLine(): void {
    if (this.owed > 0) {
      if (this.length > 0) this.emit(this.owed === 2 ? `\n${this.blankPrefix.trimEnd()}\n` : "\n");
      this.owed = 0;
      this.lineEmpty = true;
      this.spaceOwed = false;
      this.emit(this.marker ? this.marker.prefix + this.marker.text : this.prefix);
      this.marker = undefined;
    } else if (this.marker) {
      this.emit(this.marker.prefix + this.marker.text);
      this.marker = undefined;
      this.lineEmpty = true;
    }
  }

  private emit(text: string): void {
    if (!text) return;
    this.parts.push(text);
    this.length += text.length;
  }
}

/** Page text with the characters that would make Markdown links or code escaped: a page's text reads as text. */
export function escapeText(text: string): string {
  return text.replace(/[\\[\]`]/g, "\\$&");
}

/** Backticks enough to fence `code` (one more than its longest run, at least `least`). */
export function fenceFor(code: string, least: number): string {
  let longest = 0;
  for (const run of code.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return "`".repeat(Math.max(least, longest + 1));
}
