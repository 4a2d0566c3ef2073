/**
 * HTML character references for the `fetch` tool's converter: numeric ones
 * decoded here, named ones from a table holding the common names and the
 * other names a page uses, those looked up once per page (entity-names.ts),
 * so the full list of HTML's names is not copied into this project.
 * @module
 */

export type EntityTable = ReadonlyMap<string, string>;

const COMMON: Record<string, string> = {
  amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0", copy: "©", reg: "®", trade: "™",
  mdash: "—", ndash: "–", hellip: "…", lsquo: "‘", rsquo: "’", ldquo: "“", rdquo: "”", laquo: "«", raquo: "»",
  middot: "·", bull: "•", times: "×", divide: "÷", euro: "€", pound: "£", yen: "¥", cent: "¢", sect: "§", para: "¶", deg: "°",
  plusmn: "±", larr: "←", rarr: "→", uarr: "↑", darr: "↓", harr: "↔", ensp: "\u2002", emsp: "\u2003", thinsp: "\u2009", zwj: "\u200d", zwnj: "\u200c", shy: "\u00ad",
};
/** Names browsers decode even without the closing ";". */
const LEGACY = new Set(["amp", "lt", "gt", "quot", "nbsp", "copy", "reg"]);
/** Distinct unknown names looked up per page at most; beyond it they stay as written. */
const MAX_LOOKUPS = 4096;

const REFERENCE = /&(?:#([xX][0-9a-fA-F]{1,8}|[0-9]{1,10})|([a-zA-Z][a-zA-Z0-9]{0,31}))(;?)/g;

/** The common names only (no lookups). */
export const COMMON_ENTITIES: EntityTable = new Map(Object.entries(COMMON));

/** The named references `html` uses that are not common (at most MAX_LOOKUPS distinct names), to be looked up. */
export function unknownEntityNames(html: string): string[] {
  const unknown = new Set<string>();
  for (const match of html.matchAll(/&([a-zA-Z][a-zA-Z0-9]{1,31});/g)) {
    if (COMMON[match[1]!] === undefined) unknown.add(match[1]!);
    if (unknown.size >= MAX_LOOKUPS) break;
  }
  return [...unknown];
}

/** The common names and the `decoded` ones (name, text). */
export function entityTable(decoded: ReadonlyArray<readonly [string, string]>): EntityTable {
  if (decoded.length === 0) return COMMON_ENTITIES;
  const table = new Map(COMMON_ENTITIES);
  for (const [name, text] of decoded) if (typeof name === "string" && typeof text === "string" && text.length <= 8) table.set(name, text);
  return table;
}

function fromCodePoint(code: number): string {
  if (!Number.isFinite(code) || code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return "\ufffd";
  return String.fromCodePoint(code);
}

/** `text` with its character references decoded; unknown names stay as written. */
export function decodeEntities(text: string, table: EntityTable): string {
  if (!text.includes("&")) return text;
  return text.replace(REFERENCE, (whole, numeric: string | undefined, name: string | undefined, semicolon: string) => {
    if (numeric) return fromCodePoint(numeric[0] === "x" || numeric[0] === "X" ? parseInt(numeric.slice(1), 16) : parseInt(numeric, 10));
    const decoded = table.get(name!);
    if (decoded === undefined || (!semicolon && !LEGACY.has(name!))) return whole;
    return decoded;
  });
}
