/**
 * A web page as Markdown of its main content, for the `fetch` tool: the
 * page's `<main>` (or `<article>`, or `<body>`) without scripts, styles,
 * navigation, headers, footers, asides and forms, parsed by linkedom and
 * converted by node-html-markdown. Links are made absolute against the page's URL;
 * `javascript:` and other non-web links keep only their text.
 * @module
 */
import { parseHTML } from "linkedom";
import { NodeHtmlMarkdown, type TranslatorConfigObject } from "node-html-markdown";

/** Elements whose text is never part of a page's content. */
const DROPPED = ["script", "style", "noscript", "template", "nav", "header", "footer", "aside", "form", "iframe", "svg", "canvas", "button", "select", "dialog"];
const DROPPED_SET: ReadonlySet<string> = new Set(DROPPED);

/**
 * HTML handed to the converter at once. Its time grows faster than its
 * input (a megabyte of paragraphs takes seconds), so the page is parsed
 * once by linkedom, whose time grows with the page, and converted in pieces
 * of about this size, only as far as the caller reads.
 */
const PIECE_CHARS = 8 * 1024;

/** A page as Markdown: its title, its main content up to at least `wanted` characters, and whether that is all of it. */
export interface PageMarkdown {
  title: string;
  markdown: string;
  /** False when conversion stopped after `wanted` characters with more of the page left. */
  complete: boolean;
}

/** The DOM node shapes this module reads (linkedom's nodes). */
interface PageNode {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  outerHTML?: string;
  childNodes: ArrayLike<PageNode>;
}

/** The page's title and its main content as Markdown, converted until `wanted` characters exist (or the page ends). */
export function htmlToMarkdown(html: string, pageUrl: string, wanted = Number.POSITIVE_INFINITY): PageMarkdown {
  // linkedom reads a document; a bare fragment (no <html> or <body>) would leave the body empty.
  const { document } = parseHTML(/<(html|body)[\s>]/i.test(html.slice(0, 64 * 1024)) ? html : `<!doctype html><html><body>${html}</body></html>`);
  const title = (document.title ?? "").replace(/\s+/g, " ").trim();
  const main = (document.querySelector("main") ?? document.querySelector("article") ?? document.body ?? document.documentElement) as unknown as PageNode | null;
  const converter = new NodeHtmlMarkdown({ ignore: DROPPED, keepDataImages: false, maxConsecutiveNewlines: 2 }, linkTranslators(pageUrl));
  const parts: string[] = [];
  let length = 0;
  for (const piece of main ? pieces(main) : []) {
    const markdown = converter.translate(piece).trim();
    if (!markdown) continue;
    parts.push(markdown);
    length += markdown.length + 2;
    if (length > wanted) return { title, markdown: parts.join("\n\n"), complete: false };
  }
  return { title, markdown: parts.join("\n\n"), complete: true };
}

const ELEMENT = 1;
const TEXT = 3;

function serialize(node: PageNode): string {
  if (node.nodeType === ELEMENT) return node.outerHTML ?? "";
  if (node.nodeType === TEXT) return (node.textContent ?? "").replace(/[&<>]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : "&gt;"));
  return "";
}

/** The element's content as HTML pieces of about PIECE_CHARS, dropped elements left out, large containers opened. */
function* pieces(element: PageNode): Generator<string> {
  let batch = "";
  for (const child of Array.from(element.childNodes)) {
    const tag = child.nodeType === ELEMENT ? child.nodeName.toLowerCase() : "";
    if (DROPPED_SET.has(tag)) continue;
    const html = serialize(child);
    if (html.length > PIECE_CHARS && tag && tag !== "pre" && child.childNodes.length > 1) {
      if (batch) yield batch;
      batch = "";
      yield* pieces(child);
      continue;
    }
    if (batch && batch.length + html.length > PIECE_CHARS) {
      yield batch;
      batch = "";
    }
    batch += html;
  }
  if (batch) yield batch;
}

/** `[text](absolute-url)` for web and mail links; the bare text for anything else. */
function linkTranslators(pageUrl: string): TranslatorConfigObject {
  const absolute = (href: string | null | undefined): string | undefined => {
    if (!href) return undefined;
    try {
      const url = new URL(href, pageUrl);
      return url.protocol === "http:" || url.protocol === "https:" || url.protocol === "mailto:" ? url.href : undefined;
    } catch {
      return undefined;
    }
  };
  return {
    a: ({ node, visitor }) => {
      const href = absolute(node.getAttribute("href"));
      if (!href) return {};
      // Characters that would end or confuse a Markdown link target.
      const target = href.replace(/[() ]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
      return {
        postprocess: ({ content }) => content.replace(/(?:\r?\n)+/g, " "),
        childTranslators: visitor.instance.aTagTranslators,
        prefix: "[",
        postfix: `](${target})`,
      };
    },
    img: ({ node }) => {
      const src = absolute(node.getAttribute("src"));
      const alt = (node.getAttribute("alt") ?? "").replace(/[[\]\s]+/g, " ").trim();
      return { content: src ? `![${alt}](${src.replace(/[() ]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)})` : alt, recurse: false };
    },
  };
}
