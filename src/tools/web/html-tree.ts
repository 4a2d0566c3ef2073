/**
 * The element tree of a page for the `fetch` tool's converter, built from
 * html-tokens.ts with HTML's common repairs (an unclosed `<p>`, `<li>`,
 * `<td>`… closed by the next one; void elements; stray end tags ignored).
 * Every repair looks at most REPAIR_REACH open elements back, so however
 * deep or broken a page is, building costs time in proportion to its size
 * (a browser's parser can look the whole open-element stack through, which
 * a page of unclosed tags turns into time growing with its square).
 * @module
 */
import type { EntityTable } from "./html-entities.ts";
import { tokenize, type TagAttributes } from "./html-tokens.ts";

export interface HtmlElement {
  name: string;
  attributes: TagAttributes;
  children: HtmlNode[];
}
/** An element, or a text. */
export type HtmlNode = HtmlElement | string;

export interface PageTree {
  root: HtmlElement;
  /** The first `<title>`'s text, as written. */
  title: string;
  /** True when the time budget ran out before the page's end: the tree holds the page up to there. */
  stopped: boolean;
}

/** Open elements an end tag or a repair looks back through at most. */
const REPAIR_REACH = 64;

const PARAGRAPH = new Set(["p"]);
const VOID = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr", "keygen"]);
/** Elements that close an open paragraph. */
const CLOSES_P = new Set([
  "address", "article", "aside", "blockquote", "details", "dialog", "div", "dl", "fieldset", "figcaption", "figure", "footer", "form",
  "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "main", "menu", "nav", "ol", "p", "pre", "section", "table", "ul",
]);
const P_SCOPE = new Set(["html", "body", "div", "li", "td", "th", "blockquote", "section", "article", "main", "table", "button", "dd", "dt"]);
const LIST_ITEM = new Set(["li"]);
const LIST = new Set(["ul", "ol", "menu"]);
const DEFINITION = new Set(["dt", "dd"]);
const DL = new Set(["dl"]);
const ROW = new Set(["tr"]);
const CELL = new Set(["td", "th"]);
const SECTION = new Set(["thead", "tbody", "tfoot"]);
const TABLE = new Set(["table"]);
const ROW_SCOPE = new Set(["table", "thead", "tbody", "tfoot"]);
const CELL_SCOPE = new Set(["tr", "table"]);

/** Parses `html` into a tree; `stopped` is asked now and then whether the time budget ran out. */
export function buildTree(html: string, entities: EntityTable, stopped: () => boolean): PageTree {
  const root: HtmlElement = { name: "#document", attributes: {}, children: [] };
  const open: HtmlElement[] = [root];
  let title: string | undefined;
  let inTitle = false;

  /** Closes the nearest open element named in `names`, unless an element of `scope` (or the reach) comes first. */
  const closeOpen = (names: ReadonlySet<string>, scope: ReadonlySet<string>) => {
    for (let i = open.length - 1, last = Math.max(1, open.length - REPAIR_REACH); i >= last; i--) {
      const name = open[i]!.name;
      if (names.has(name)) {
        open.length = i;
        return;
      }
      if (scope.has(name)) return;
    }
  };

  const finished = tokenize(
    html,
    {
      open(name, attributes, selfClosing) {
        if (CLOSES_P.has(name)) closeOpen(PARAGRAPH, P_SCOPE);
        if (name === "li") closeOpen(LIST_ITEM, LIST);
        else if (DEFINITION.has(name)) closeOpen(DEFINITION, DL);
        else if (name === "tr") closeOpen(ROW, ROW_SCOPE);
        else if (CELL.has(name)) closeOpen(CELL, CELL_SCOPE);
        else if (SECTION.has(name)) closeOpen(SECTION, TABLE);
        const element: HtmlElement = { name, attributes, children: [] };
        open[open.length - 1]!.children.push(element);
        if (!VOID.has(name) && !selfClosing) open.push(element);
        inTitle = name === "title" && title === undefined;
      },
      close(name) {
        if (inTitle && name === "title") inTitle = false;
        if (VOID.has(name)) return;
        for (let i = open.length - 1, last = Math.max(1, open.length - REPAIR_REACH); i >= last; i--) {
          if (open[i]!.name === name) {
            open.length = i;
            return;
          }
        }
      },
      text(text) {
        if (inTitle) title = (title ?? "") + text;
        const children = open[open.length - 1]!.children;
        const last = children.length - 1;
        // Adjacent texts are joined, so a page of many small texts does not become many nodes.
        if (last >= 0 && typeof children[last] === "string" && (children[last] as string).length < 4096) children[last] = (children[last] as string) + text;
        else children.push(text);
      },
      stopped,
    },
    entities,
  );
  return { root, title: title ?? "", stopped: !finished };
}
