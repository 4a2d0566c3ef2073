/**
 * One command file or `SKILL.md` as the session reads it: through the
 * confined reader (inside the areas of its folder, a regular file, at most
 * 64 KiB), redacted (its text reaches the editor and the model), split into
 * frontmatter and body — and what its frontmatter asks for that acp-edge does
 * not honour.
 * @module
 */
import { describeSkip, readConfinedFile } from "../../runtime/files/confined-file.ts";
import { redact } from "../../runtime/secrets.ts";
import { readFrontmatter, type Frontmatter, type FrontmatterFields } from "./frontmatter.ts";
import type { SetupFolder } from "./setup-places.ts";

/** A command file or skill larger than this is not read. */
export const SETUP_FILE_BUDGET = 64 * 1024;
/** A skill's or an agent's name, as Agent Skills and Claude Code name them: lowercase letters, digits and single hyphens. */
export const SETUP_NAME = /^(?=.{1,64}$)[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** A skill's or an agent's description is cut here: it is listed to the model in every request. */
export const MAX_SETUP_DESCRIPTION = 1024;
/** Frontmatter fields that would grant tools, run hooks or switch the model in Claude Code: never honoured, always told. */
const UNHONOURED_FIELDS = ["allowed-tools", "model", "hooks"];

/** What a command file and a skill have in common: how the editor lists it, and what to tell about it. */
export interface OfferedFile {
  /** The command's name (and the skill's). */
  name: string;
  description: string;
  /** What to type after `/name` (`argument-hint`). */
  hint?: string;
  /** The rank of the folder it came from (lower wins a name; see `setup-places.ts`). */
  rank: number;
  /** Frontmatter fields present that acp-edge does not honour, to tell the user once. */
  ignored: string[];
}

/** What the folders of one kind gave: the items in rank order, notices, and what was read (for change stamps). */
export interface LoadedSetup<T> {
  items: T[];
  notices: string[];
  folders: string[];
  files: string[];
}

/** The file split into frontmatter and body; or why it was not read (`missing`: there is no file at all). */
export type SetupFileRead = { ok: true; parsed: Frontmatter } | { ok: false; missing: boolean; why: string };

/** Reads one command file or `SKILL.md` that must lead into `areas` (named `areaName` in notices). */
export async function readSetupFile(path: string, areas: readonly string[], areaName: string): Promise<SetupFileRead> {
  const read = await readConfinedFile(path, { areas, budget: SETUP_FILE_BUDGET });
  if (!read.ok) return { ok: false, missing: read.reason === "missing", why: describeSkip(read, areaName, SETUP_FILE_BUDGET) };
  return { ok: true, parsed: await readFrontmatter(redact(read.text)) };
}

/**
 * Reads a file a folder listing found, for `loaded`: stamped for change
 * detection, and told (by path and reason) when it is there but not read.
 * Undefined when it was not read.
 */
export async function readListedFile<T>(path: string, noun: string, areas: readonly string[], areaName: string, loaded: LoadedSetup<T>): Promise<Frontmatter | undefined> {
  loaded.files.push(path);
  const read = await readSetupFile(path, areas, areaName);
  if (read.ok) return read.parsed;
  if (!read.missing) loaded.notices.push(`${noun} ${path} was not read: ${read.why}.`);
  return undefined;
}

/** A named setup file (a skill or an agent) as read: its fields, body and name, and how to say it was skipped. */
export interface NamedSetupFile {
  fields: FrontmatterFields;
  body: string;
  name: string;
  skipped(why: string): void;
}

/**
 * Reads a listed skill or agent file of `folder` and names it (its `name`
 * field, else `defaultName`); undefined, with a notice, when it cannot be
 * read, parsed or named.
 */
export async function readNamedSetupFile<T>(path: string, folder: SetupFolder, loaded: LoadedSetup<T>, defaultName: string): Promise<NamedSetupFile | undefined> {
  const parsed = await readListedFile(path, folder.noun, folder.areas, folder.areaName, loaded);
  if (!parsed) return undefined;
  const skipped = (why: string) => void loaded.notices.push(`${folder.noun} ${path} was not loaded: ${why}.`);
  if (!parsed.ok) {
    skipped(parsed.why);
    return undefined;
  }
  const name = parsed.fields.text("name")?.trim() || defaultName;
  if (!SETUP_NAME.test(name)) {
    skipped("its name is not 1 to 64 lowercase letters, digits and single hyphens (not at either end)");
    return undefined;
  }
  return { fields: parsed.fields, body: parsed.body, name, skipped };
}

/**
 * Characters a file's description must not carry to the model or the editor: C0 controls other than
 * white space (ESC starts terminal sequences, BEL rings), DEL, C1 controls, and every character that
 * shows nothing or changes how text reads: format characters (\p{Cf}: the bidirectional marks,
 * embeddings, overrides and isolates, zero-width spaces and joiners, invisible operators, the soft
 * hyphen) and the other default-ignorable code points (the tag characters U+E0000–U+E0FFF, which
 * spell ASCII nobody sees; variation selectors; Hangul fillers). Without them a description could
 * carry instructions the model reads and the user never sees in the menu. The zero-width joiner
 * goes too, even inside an emoji sequence: the emoji are then shown side by side, and a menu line
 * loses nothing it needs.
 */
const HIDDEN = /[\u0000-\u0008\u000E-\u001F\u007F-\u009F\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;

/**
 * Text shown on one line of a menu (a description or hint of an agent file, a skill or a command
 * file): hidden characters removed, runs of white space (new lines included) become one space.
 */
export function oneLine(text: string): string {
  return text.replace(HIDDEN, "").replace(/\s+/g, " ").trim();
}

/** The fields of `fields` that are present and not honoured. */
export function unhonoured(fields: FrontmatterFields): string[] {
  return UNHONOURED_FIELDS.filter((name) => fields.has(name));
}

/** What the user is told, once, about a command file's or skill's fields that are not honoured and shell lines not run. */
export function unhonouredNotice(name: string, path: string, fields: readonly string[], marksShell: boolean): string | undefined {
  const parts: string[] = [];
  if (fields.includes("allowed-tools")) parts.push("its allowed-tools grant nothing (the session's mode and permission rules decide every tool call)");
  if (fields.includes("model")) parts.push("its model is not used (the session's model answers)");
  if (fields.includes("hooks")) parts.push("its hooks are not run");
  if (marksShell) parts.push("its !`…` shell lines are not run (the model gets them as text, with a note)");
  return parts.length === 0 ? undefined : `/${name} (${path}): ${parts.join("; ")}.`;
}
