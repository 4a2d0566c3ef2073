/**
 * A web page as Markdown of its main content, for the `fetch` tool: the
 * page's `<main>` (or `<article>`, or `<body>`) without scripts, styles,
 * navigation, headers, footers, asides and forms. Links are made absolute
 * against the page's URL; `javascript:` and other non-web links keep only
 * their text. Headings, lists, quotes, code blocks, tables and images keep
 * their Markdown form.
 *
 * Built for hostile pages: the tokenizer, the tree builder and this walk
 * (a loop over an explicit stack, never recursion) each cost time in
 * proportion to the page, the walk stops once `wanted` characters exist,
 * and every stage asks `stopped()` now and then, so a time budget ends the
 * conversion with what was converted by then.
 * @module
 */
import { COMMON_ENTITIES, decodeEntities, entityTable, unknownEntityNames, type EntityTable } from "./html-entities.ts";
import { buildTree, type HtmlElement } from "./html-tree.ts";
import { escapeText, fenceFor, MarkdownWriter } from "./markdown-writer.ts";
import { neutraliseMarkers } from "./untrusted-marker.ts";

/** Elements whose text is never part of a page's content. */
const DROPPED = new Set([
  "head", "script", "style", "noscript", "template", "nav", "header", "footer", "aside", "form", "iframe", "svg", "canvas", "button", "select",
  "dialog", "object", "embed", "math", "textarea", "input",
]);
/** Elements shown as blocks of their own, a blank line around them. */
const PARAGRAPH = new Set(["p", "address", "figure", "details", "fieldset", "center", "dl"]);
/** Elements that start a new line. */
const LINE = new Set(["div", "section", "article", "main", "body", "figcaption", "summary", "dt", "dd", "caption", "hgroup", "legend", "tr"]);
const HEADING: Record<string, number> = { h1: 1, h2: 2, h3: 3, h4: 4, h5: 5, h6: 6 };
const STRONG = new Set(["strong", "b"]);
const EMPHASIS = new Set(["em", "i"]);

/** A page as Markdown: its title, its main content up to at least `wanted` characters, and whether that is all of it. */
export interface PageMarkdown {
  title: string;
  markdown: string;
  /** False when conversion stopped after `wanted` characters with more of the page left, or when the budget ran out. */
  complete: boolean;
  /** True when the time budget ran out: `markdown` is what was converted by then. */
  stopped: boolean;
}

export interface ConvertOptions {
  /** Characters wanted; conversion stops once more exist. */
  wanted?: number;
  /** True when the time budget is spent; asked now and then. */
  stopped?: () => boolean;
}

/** What the uncommon named character references stand for (see entity-names.ts). */
export type EntityLookup = (names: string[]) => Promise<ReadonlyArray<readonly [string, string]>>;

/** Converts with the named character references the page uses, the uncommon ones looked up once through `lookup`. */
export async function pageToMarkdown(html: string, pageUrl: string, options: ConvertOptions, lookup: EntityLookup): Promise<PageMarkdown> {
  const names = unknownEntityNames(html);
  return htmlToMarkdown(html, pageUrl, options, names.length ? entityTable(await lookup(names)) : COMMON_ENTITIES);
}

/** The page's title and its main content as Markdown, converted until `wanted` characters exist (or the page ends). */
export function htmlToMarkdown(html: string, pageUrl: string, options: ConvertOptions = {}, entities: EntityTable = COMMON_ENTITIES): PageMarkdown {
  // Once the budget is spent it stays spent, without asking again.
  let spent = false;
  const stopped = () => spent || (spent = options.stopped?.() ?? false);
  const tree = buildTree(html, entities, stopped);
  // The title is shown above the Markdown: escaped like any page text.
  const title = neutraliseMarkers(escapeText(tree.title.replace(/\s+/g, " ").trim()));
  const writer = new MarkdownWriter(options.wanted ?? Number.POSITIVE_INFINITY);
  const walked = walk(mainContent(tree.root), writer, new Links(pageUrl, entities), stopped);
  const markdown = neutraliseMarkers(writer.toString().trim());
  const halted = tree.stopped || walked === "stopped";
  return { title, markdown, complete: !halted && walked === "done", stopped: halted };
}

/** The first `<main>`, else the first `<article>`, else `<body>`, else the whole document; found without recursion. */
function mainContent(root: HtmlElement): HtmlElement {
  let article: HtmlElement | undefined;
  let body: HtmlElement | undefined;
  const pending: HtmlElement[] = [root];
  while (pending.length) {
    const element = pending.pop()!;
    if (element.name === "main") return element;
    if (element.name === "article") article ??= element;
    if (element.name === "body") body ??= element;
    if (DROPPED.has(element.name)) continue;
    for (let i = element.children.length - 1; i >= 0; i--) {
      const child = element.children[i]!;
      if (typeof child !== "string") pending.push(child);
    }
  }
  return article ?? body ?? root;
}

/** Absolute web and mail addresses; anything else (javascript:, data:…) is no link. */
class Links {
  constructor(private readonly pageUrl: string, private readonly entities: EntityTable) {}

  absolute(raw: string | undefined): string | undefined {
    if (!raw) return undefined;
    try {
      const url = new URL(decodeEntities(raw, this.entities).trim(), this.pageUrl);
      if (url.protocol !== "http:" && url.protocol !== "https:" && url.protocol !== "mailto:") return undefined;
      // Characters that would end or confuse a Markdown link target.
      return url.href.replace(/[()<> ]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    } catch {
      return undefined;
    }
  }

  text(raw: string | undefined): string {
    return escapeText(decodeEntities(raw ?? "", this.entities).replace(/[[\]\s]+/g, " ").trim());
  }
}

/** The text of an element's subtree (for code), without recursion. */
function textOf(element: HtmlElement): string {
  const parts: string[] = [];
  const pending: Array<HtmlElement | string> = [element];
  while (pending.length) {
    const node = pending.pop()!;
    if (typeof node === "string") parts.push(node);
    else if (node.name === "br") parts.push("\n");
    else for (let i = node.children.length - 1; i >= 0; i--) pending.push(node.children[i]!);
  }
  return parts.join("");
}

const SKIP = Symbol("skip");
type Exit = (() => void) | undefined | typeof SKIP;

interface Frame {
  element: HtmlElement;
  next: number;
  exit: (() => void) | undefined;
}

/** Writes `main` as Markdown; "done" when all of it was written, "full" when `wanted` was reached, "stopped" when the budget ran out. */
function walk(main: HtmlElement, writer: MarkdownWriter, links: Links, stopped: () => boolean): "done" | "full" | "stopped" {
  let linkDepth = 0;
  let tableDepth = 0;
  /** The innermost table's row and cell counts, and the innermost list's numbering. */
  let table = { rows: 0, cells: 0 };
  let list: { ordered: boolean; count: number } | undefined;
  // Shared by every paragraph and line element: a page of many elements makes no closure per element.
  const blankLineAfter = () => writer.block(2);
  const lineAfter = () => writer.block(1);

  const enter = (element: HtmlElement): Exit => {
    const name = element.name;
    if (DROPPED.has(name)) return SKIP;
    const level = HEADING[name];
    if (level) {
      writer.block(2);
      writer.write(`${"#".repeat(level)} `);
      writer.enterInline();
      return () => {
        writer.leaveInline();
        writer.block(2);
      };
    }
    switch (name) {
      case "br":
        writer.lineBreak();
        return SKIP;
      case "hr":
        writer.block(2);
        writer.write("---");
        writer.block(2);
        return SKIP;
      case "img": {
        const src = links.absolute(element.attributes.src);
        const alt = links.text(element.attributes.alt);
        if (src) writer.write(`![${alt}](${src})`);
        else if (alt) writer.text(alt);
        return SKIP;
      }
      case "pre": {
        if (writer.inInline) return writeCode(element);
        const code = textOf(element).replace(/^\n/, "").replace(/\s+$/, "");
        const language = /(?:^|\s)(?:language|lang)-([\w+#.-]{1,32})/.exec(firstCodeClass(element) ?? "")?.[1] ?? "";
        const fence = fenceFor(code, 3);
        writer.block(2);
        writer.write(`${fence}${language}`);
        writer.lines(`\n${code}\n${fence}`);
        writer.block(2);
        return SKIP;
      }
      case "code":
      case "kbd":
      case "samp":
      case "tt":
        return writeCode(element);
      case "a": {
        const href = linkDepth === 0 ? links.absolute(element.attributes.href) : undefined;
        if (!href) return undefined;
        linkDepth++;
        writer.write("[");
        const mark = writer.mark();
        writer.enterInline();
        return () => {
          writer.leaveInline();
          linkDepth--;
          if (writer.mark() === mark) writer.dropSince(mark - 1);
          else writer.close(`](${href})`);
        };
      }
      case "ul":
      case "ol":
      case "menu": {
        const outer = list;
        list = { ordered: name === "ol", count: 0 };
        writer.block(outer ? 1 : 2);
        return () => {
          list = outer;
          writer.block(outer ? 1 : 2);
        };
      }
      case "li": {
        const marker = list?.ordered ? `${++list.count}. ` : "- ";
        writer.listItem(marker);
        return () => {
          writer.popPrefix();
          writer.block(1);
        };
      }
      case "blockquote":
        writer.block(2);
        writer.pushPrefix("> ");
        return () => {
          writer.popPrefix();
          writer.block(2);
        };
      case "table":
        return enterTable();
      case "tr":
        if (tableDepth !== 1) break;
        return enterRow();
      case "td":
      case "th":
        if (tableDepth !== 1) break;
        writer.write(table.cells === 0 ? "| " : " | ");
        table.cells++;
        writer.enterInline();
        return () => writer.leaveInline();
    }
    if (STRONG.has(name) || EMPHASIS.has(name)) {
      const markup = STRONG.has(name) ? "**" : "_";
      writer.write(markup);
      const mark = writer.mark();
      return () => {
        if (writer.mark() === mark) writer.dropSince(mark - 1);
        else writer.close(markup);
      };
    }
    if (PARAGRAPH.has(name)) {
      writer.block(2);
      return blankLineAfter;
    }
    if (LINE.has(name)) {
      writer.block(1);
      return lineAfter;
    }
    return undefined;
  };

  const writeCode = (element: HtmlElement): Exit => {
    const code = textOf(element).replace(/\s+/g, " ");
    const fence = fenceFor(code, 1);
    if (code.trim()) writer.code(code.includes("`") ? `${fence} ${code} ${fence}` : `${fence}${code}${fence}`);
    return SKIP;
  };

  // A table (not one nested in a cell: that one reads as text) becomes rows of cells, a rule after the first.
  const enterTable = (): Exit => {
    tableDepth++;
    if (tableDepth !== 1) return () => void tableDepth--;
    const outer = table;
    table = { rows: 0, cells: 0 };
    writer.block(2);
    return () => {
      tableDepth--;
      table = outer;
      writer.block(2);
    };
  };
  const enterRow = (): Exit => {
    writer.block(1);
    table.cells = 0;
    return () => {
      if (table.cells === 0) return;
      writer.close(" |");
      if (table.rows++ === 0) {
        writer.block(1);
        writer.write(`|${" --- |".repeat(table.cells)}`);
      }
      writer.block(1);
    };
  };

  const stack: Frame[] = [{ element: main, next: 0, exit: undefined }];
  let visits = 0;
  while (stack.length) {
    if (writer.full) return "full";
    if ((++visits & 1023) === 0 && stopped()) return "stopped";
    const frame = stack[stack.length - 1]!;
    if (frame.next >= frame.element.children.length) {
      stack.pop();
      frame.exit?.();
      continue;
    }
    const child = frame.element.children[frame.next++]!;
    if (typeof child === "string") {
      writer.text(child);
      continue;
    }
    const exit = enter(child);
    if (exit !== SKIP) stack.push({ element: child, next: 0, exit });
  }
  return writer.full ? "full" : "done";
}

/** The class of a `<pre>`'s first `<code>` (or of the `<pre>` itself), which names the language. */
function firstCodeClass(pre: HtmlElement): string | undefined {
  const code = pre.children.find((child): child is HtmlElement => typeof child !== "string" && child.name === "code");
  return code?.attributes.class ?? pre.attributes.class;
}
