/**
 * A single-pass HTML tokenizer for the `fetch` tool's converter: start
 * tags (with the few attributes the converter reads), end tags and text
 * (entities decoded), comments and doctypes skipped, the content of raw
 * text elements (`<script>`, `<style>`…) taken as one text. Every character
 * is looked at a bounded number of times, so the time grows with the page
 * whatever it holds; a full HTML parser's tree building is left to the
 * tree builder (html-tree.ts), which keeps that bound too.
 * @module
 */
import { decodeEntities, type EntityTable } from "./html-entities.ts";

/** The attributes the converter reads; every other attribute is skipped while tokenizing. */
export type TagAttributes = Partial<Record<"href" | "src" | "alt" | "class", string>>;
const KEPT = new Set(["href", "src", "alt", "class"]);
const NO_ATTRIBUTES: TagAttributes = Object.freeze({});

export interface TokenSink {
  open(name: string, attributes: TagAttributes, selfClosing: boolean): void;
  close(name: string): void;
  text(text: string): void;
  /** Called now and then; true stops tokenizing (the time budget ran out). */
  stopped(): boolean;
}

/** Elements whose content is text up to their own end tag, never markup. */
const RAW_TEXT = new Set(["script", "style", "xmp", "iframe", "noembed", "noframes", "noscript", "textarea", "title", "plaintext"]);
/** Raw text elements whose content still has entities decoded. */
const ESCAPABLE_RAW_TEXT = new Set(["textarea", "title"]);

const isLetter = (code: number) => (code >= 97 && code <= 122) || (code >= 65 && code <= 90);
const isSpace = (code: number) => code === 32 || code === 9 || code === 10 || code === 12 || code === 13;

/** Tokenizes `html` into `sink`; returns false when the sink asked to stop. */
export function tokenize(html: string, sink: TokenSink, entities: EntityTable): boolean {
  // Lower case once, so the search for a raw text element's end tag is one indexOf per element.
  let lower: string | undefined;
  let pos = 0;
  let tokens = 0;
  const length = html.length;
  while (pos < length) {
    if ((++tokens & 1023) === 0 && sink.stopped()) return false;
    const lt = html.indexOf("<", pos);
    if (lt < 0) {
      sink.text(decodeEntities(html.slice(pos), entities));
      return true;
    }
    if (lt > pos) sink.text(decodeEntities(html.slice(pos, lt), entities));
    const next = html.charCodeAt(lt + 1);
    if (isLetter(next)) {
      const tag = startTag(html, lt + 1);
      if (!tag) return true; // a tag cut off by the end of the page is dropped, as browsers do
      pos = tag.end;
      sink.open(tag.name, tag.attributes, tag.selfClosing);
      if (RAW_TEXT.has(tag.name) && !tag.selfClosing) {
        lower ??= html.toLowerCase();
        const close = tag.name === "plaintext" ? -1 : lower.indexOf(`</${tag.name}`, pos);
        const end = close < 0 ? length : close;
        const raw = html.slice(pos, end);
        if (raw) sink.text(ESCAPABLE_RAW_TEXT.has(tag.name) ? decodeEntities(raw, entities) : raw);
        sink.close(tag.name);
        const gt = close < 0 ? -1 : html.indexOf(">", close);
        pos = gt < 0 ? length : gt + 1;
      }
    } else if (next === 47 /* / */ && isLetter(html.charCodeAt(lt + 2))) {
      const nameEnd = nameEndAt(html, lt + 2);
      const gt = html.indexOf(">", nameEnd);
      if (gt < 0) return true;
      sink.close(html.slice(lt + 2, nameEnd).toLowerCase());
      pos = gt + 1;
    } else if (html.startsWith("<!--", lt)) {
      const end = html.indexOf("-->", lt + 4);
      pos = end < 0 ? length : end + 3;
    } else if (next === 33 /* ! */ || next === 63 /* ? */ || next === 47 /* / */) {
      // Doctype, CDATA, processing instruction or a broken end tag: skipped up to the next ">".
      const gt = html.indexOf(">", lt + 2);
      pos = gt < 0 ? length : gt + 1;
    } else {
      sink.text("<");
      pos = lt + 1;
    }
  }
  return true;
}

function nameEndAt(html: string, from: number): number {
  let i = from;
  while (i < html.length) {
    const code = html.charCodeAt(i);
    if (isSpace(code) || code === 47 || code === 62) break;
    i++;
  }
  return i;
}

interface StartTag {
  name: string;
  attributes: TagAttributes;
  selfClosing: boolean;
  /** Index just after the tag's ">". */
  end: number;
}

/** The start tag whose name begins at `from`, or undefined when the page ends inside it. */
function startTag(html: string, from: number): StartTag | undefined {
  const nameEnd = nameEndAt(html, from);
  const name = html.slice(from, nameEnd).toLowerCase();
  // Most tags have none of the kept attributes: they share one empty object instead of each making one.
  let attributes: TagAttributes = NO_ATTRIBUTES;
  let i = nameEnd;
  let selfClosing = false;
  const length = html.length;
  while (i < length) {
    const code = html.charCodeAt(i);
    if (code === 62) return { name, attributes, selfClosing, end: i + 1 };
    if (isSpace(code)) {
      i++;
      continue;
    }
    if (code === 47) {
      selfClosing = html.charCodeAt(i + 1) === 62;
      i++;
      continue;
    }
    selfClosing = false;
    // An attribute: a name, then optionally "=" and a quoted or bare value.
    const nameStart = i;
    while (i < length) {
      const c = html.charCodeAt(i);
      if (isSpace(c) || c === 47 || c === 62 || (c === 61 && i > nameStart)) break;
      i++;
    }
    const attribute = html.slice(nameStart, i).toLowerCase();
    while (i < length && isSpace(html.charCodeAt(i))) i++;
    if (html.charCodeAt(i) !== 61) continue;
    i++;
    while (i < length && isSpace(html.charCodeAt(i))) i++;
    const quote = html.charCodeAt(i);
    let value: string;
    if (quote === 34 || quote === 39) {
      const close = html.indexOf(quote === 34 ? '"' : "'", i + 1);
      if (close < 0) return undefined;
      value = html.slice(i + 1, close);
      i = close + 1;
    } else {
      const start = i;
      while (i < length && !isSpace(html.charCodeAt(i)) && html.charCodeAt(i) !== 62) i++;
      value = html.slice(start, i);
    }
    const key = attribute as keyof TagAttributes;
    if (KEPT.has(attribute) && attributes[key] === undefined) {
      if (attributes === NO_ATTRIBUTES) attributes = {};
      attributes[key] = value;
    }
  }
  return undefined;
}
