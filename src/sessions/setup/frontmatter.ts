/**
 * The YAML frontmatter of command files, prompt templates and `SKILL.md`
 * (`---` lines around it at the top of the file), read with the `yaml`
 * package: descriptions folded over lines (`description: >-`), lists
 * (`allowed-tools:`) and maps (`metadata:`) are real YAML. Files in the wild
 * also carry values that are not, and that Claude Code accepts as text —
 * `argument-hint: [pr-number] [priority]` (two YAML lists), `description: Fix:
 * the bug` (a nested map in YAML): when every line of a frontmatter that YAML
 * refuses is a plain top-level `key: value` line, the values are taken as
 * written. Anything else is malformed, and the caller says so.
 *
 * A repository writes these files, so the reading is bounded: at most 16 KiB
 * of frontmatter, no aliases (a "billion laughs" expands nothing), no
 * explicit tags (`!!binary`), one document, unique keys; the parser's own
 * limits turn deep nesting into an error, never a crash.
 * @module
 */

/** The fields of a frontmatter, read as the callers need them. */
export interface FrontmatterFields {
  /** Whether the field is there at all. */
  has(name: string): boolean;
  /** A field as text: a string, number or boolean as written; a list or map only as its raw `key: value` line. */
  text(name: string): string | undefined;
  /** A true/false field (`true`, `false`, or those words as text). */
  flag(name: string): boolean | undefined;
  /** A list field: a YAML list of strings, or text split at commas; empty items dropped. */
  list(name: string): string[] | undefined;
}

/** A file split into its frontmatter fields and body, or why its frontmatter could not be read (the body is then the text after it). */
export type Frontmatter = { ok: true; fields: FrontmatterFields; body: string } | { ok: false; why: string; body: string };

/** A frontmatter larger than this is not parsed: the fields of a command or skill take a few hundred bytes. */
const MAX_FRONTMATTER_BYTES = 16 * 1024;
/** Nesting deeper than this (brackets, or columns of indentation) is refused before parsing: it only costs time. */
const MAX_NESTING = 32;
const MAX_INDENT = 64;

const OPENING = /^\uFEFF?---[ \t]*\r?\n/;
const CLOSING = /^---[ \t]*$/m;
/** A plain top-level `key: value` line; values YAML reads as anchors, aliases, tags or block scalars are not plain. */
const SIMPLE_LINE = /^([A-Za-z_][\w-]*)[ \t]*:(?:[ \t]+([^&*!|>\s].*?))?[ \t]*$/;

const NO_FIELDS: FrontmatterFields = fieldsOf(Object.create(null), new Map());

/** Splits `text` into frontmatter and body; a file without frontmatter has no fields and is all body. */
export async function readFrontmatter(text: string): Promise<Frontmatter> {
  const opening = OPENING.exec(text);
  if (!opening) return { ok: true, fields: NO_FIELDS, body: text.replace(/^\uFEFF/, "") };
  const rest = text.slice(opening[0].length);
  const closing = CLOSING.exec(rest);
  // An opening rule with no closing one is a Markdown rule, not frontmatter.
  if (!closing) return { ok: true, fields: NO_FIELDS, body: text.replace(/^\uFEFF/, "") };
  const block = rest.slice(0, closing.index).replace(/\r?\n$/, "");
  const body = rest.slice(closing.index + closing[0].length).replace(/^\r?\n/, "");
  if (new TextEncoder().encode(block).length > MAX_FRONTMATTER_BYTES) return { ok: false, why: `its frontmatter is larger than ${MAX_FRONTMATTER_BYTES / 1024} KiB`, body };
  if (nestedTooDeeply(block)) return { ok: false, why: "its frontmatter is nested too deeply", body };
  const lines = simpleLines(block);
  const parsed = await parseYaml(block);
  if (parsed.ok) return { ok: true, fields: fieldsOf(parsed.value, lines ?? new Map()), body };
  if (lines) return { ok: true, fields: fieldsOf(Object.create(null), lines), body };
  return { ok: false, why: `its frontmatter is not valid YAML (${parsed.why})`, body };
}

/** Whether brackets (counted in quotes too: stricter, never looser) or indentation go deeper than a frontmatter needs. */
function nestedTooDeeply(block: string): boolean {
  let depth = 0;
  for (const c of block) {
    if (c === "[" || c === "{") depth++;
    else if ((c === "]" || c === "}") && depth > 0) depth--;
    if (depth > MAX_NESTING) return true;
  }
  return block.split("\n").some((line) => line.length - line.trimStart().length > MAX_INDENT);
}

/** The raw `key: value` pairs when every line is one (or blank, or a comment); undefined otherwise. */
function simpleLines(block: string): Map<string, string> | undefined {
  const pairs = new Map<string, string>();
  for (const line of block.split(/\r?\n/)) {
    if (/^\s*(#.*)?$/.test(line)) continue;
    const match = SIMPLE_LINE.exec(line);
    // A key given twice is ambiguous, not simple.
    if (!match || pairs.has(match[1]!)) return undefined;
    pairs.set(match[1]!, unquote(match[2] ?? ""));
  }
  return pairs;
}

function unquote(value: string): string {
  return value.replace(/^(["'])(.*)\1$/, "$2");
}

type Parsed = { ok: true; value: Record<string, unknown> } | { ok: false; why: string };

async function parseYaml(block: string): Promise<Parsed> {
  if (block.trim() === "") return { ok: true, value: Object.create(null) };
  // Loaded on first use: sessions without frontmatter never load the parser.
  const { parseDocument } = await import("./yaml-document.ts");
  try {
    const options = { schema: "core", uniqueKeys: true, maxAliasCount: 0, resolveKnownTags: false, prettyErrors: false, logLevel: "silent" } as const;
    const document = parseDocument(block, options);
    // Said by line and kind only: the parser's messages quote the file, and notices never carry content.
    const problem = document.errors[0] ?? document.warnings[0];
    if (problem) return { ok: false, why: `line ${lineAt(block, problem.pos[0])}: ${problem.code.toLowerCase().replace(/_/g, " ")}` };
    const value: unknown = document.toJS(options);
    if (value === null || value === undefined) return { ok: true, value: Object.create(null) };
    if (typeof value !== "object" || Array.isArray(value)) return { ok: false, why: "it is not a list of fields" };
    return { ok: true, value: Object.assign(Object.create(null), value) as Record<string, unknown> };
  } catch (error) {
    // maxAliasCount refuses aliases by throwing; anything else the parser throws is unreadable too.
    return { ok: false, why: error instanceof ReferenceError ? "aliases are not allowed" : "it cannot be parsed" };
  }
}

/** The 1-based line of `offset` in `text`. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < Math.min(offset, text.length); i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

function fieldsOf(values: Record<string, unknown>, lines: ReadonlyMap<string, string>): FrontmatterFields {
  const own = (name: string) => Object.hasOwn(values, name);
  const text = (name: string): string | undefined => {
    const value = own(name) ? values[name] : undefined;
    if (typeof value === "string") return value;
    if (typeof value === "number" || typeof value === "boolean") return String(value);
    // `argument-hint: [message]` is a YAML list, but what its author wrote is the hint.
    return lines.get(name);
  };
  return {
    has: (name) => own(name) || lines.has(name),
    text,
    list(name) {
      const value = own(name) ? values[name] : undefined;
      const items = Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : text(name)?.split(",");
      return items?.map((item) => item.trim()).filter((item) => item !== "");
    },
    flag(name) {
      const value = own(name) ? values[name] : undefined;
      if (typeof value === "boolean") return value;
      const written = text(name)?.trim().toLowerCase();
      return written === "true" ? true : written === "false" ? false : undefined;
    },
  };
}
