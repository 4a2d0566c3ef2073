/**
 * A web page as Markdown of its main content, for the `fetch` tool: the
 * page's `<main>` (or `<article>`, or `<body>`) without scripts, styles,
 * navigation, headers, footers, asides and forms, converted by
 * node-html-markdown. Links are made absolute against the page's URL;
 * `javascript:` and other non-web links keep only their text.
 * @module
 */
import { NodeHtmlMarkdown, type TranslatorConfigObject } from "node-html-markdown";
import { parse } from "node-html-parser";

/** Elements whose text is never part of a page's content. */
const DROPPED = ["script", "style", "noscript", "template", "nav", "header", "footer", "aside", "form", "iframe", "svg", "canvas", "button", "select", "dialog"];

/** The page's title and its main content as Markdown. */
export function htmlToMarkdown(html: string, pageUrl: string): { title: string; markdown: string } {
  const root = parse(html, { comment: false, blockTextElements: { pre: true } });
  const title = (root.querySelector("title")?.textContent ?? "").replace(/\s+/g, " ").trim();
  const main = root.querySelector("main") ?? root.querySelector("article") ?? root.querySelector("body") ?? root;
  for (const element of main.querySelectorAll(DROPPED.join(","))) element.remove();
  const converter = new NodeHtmlMarkdown({ ignore: DROPPED, keepDataImages: false, maxConsecutiveNewlines: 2 }, linkTranslators(pageUrl));
  return { title, markdown: converter.translate(main.toString()).trim() };
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
