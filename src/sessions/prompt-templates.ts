/**
 * Prompt templates: Markdown files that become slash commands — acp-edge's
 * own (`<cwd>/.acp-edge/prompts/`, `<home>/prompts/`) and Claude Code's
 * (`<cwd>/.claude/commands/`, `~/.claude/commands/`), any depth. The file
 * name is the command, sub-folders namespace it (`frontend/component.md` is
 * `/frontend:component`); frontmatter `description` and `argument-hint` are
 * shown in the editor's command list. Frontmatter that would grant tools or
 * switch the model (`allowed-tools`, `model`) is kept only to tell the user
 * it is not honoured. Folders and files are read with `listConfinedFiles` and
 * `readConfinedFile`: what leads outside, is not a regular file or is too
 * large is left out, with a notice naming it and the reason.
 * @module
 */
import { describeSkip, readConfinedFile } from "../runtime/confined-file.ts";
import { describeFolderSkip, listConfinedFiles } from "../runtime/confined-folder.ts";
import { basename } from "../runtime/path.ts";
import { redact } from "../runtime/secrets.ts";
import { readFrontmatter, type FrontmatterFields } from "./frontmatter.ts";
import type { SetupFolder } from "./setup-places.ts";

/** A prompt template: its command name, what the editor shows, its body and file, and the rank of its folder. */
export interface PromptTemplate {
  name: string;
  description: string;
  /** What to type after the name (`argument-hint`). */
  hint?: string;
  body: string;
  path: string;
  rank: number;
  /** Frontmatter fields present that acp-edge does not honour (`allowed-tools`, `model`), to tell the user once. */
  ignored: string[];
}

/** Templates in rank order (one per name), notices about files found but not used, and what was read (for change stamps). */
export interface LoadedTemplates {
  templates: PromptTemplate[];
  notices: string[];
  folders: string[];
  files: string[];
}

const MAX_DEPTH = 4;
const MAX_TEMPLATES = 200;
/** Directory entries looked at per folder tree: a folder of a million files costs no more. */
const MAX_ENTRIES = 5000;
/** A template larger than this is not read. */
export const TEMPLATE_BUDGET = 64 * 1024;
/** What a command name may be: what `parseSlashCommand` accepts, of a length a command menu can show. */
const COMMAND_NAME = /^[A-Za-z0-9][\w:.-]{0,127}$/;
/** Frontmatter fields that would grant tools or switch the model in Claude Code: never honoured, always told. */
export const UNHONOURED_FIELDS = ["allowed-tools", "model", "hooks"];

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

async function collect(folder: SetupFolder, loaded: LoadedTemplates, names: Set<string>): Promise<void> {
  const notice = (path: string, why: string) => loaded.notices.push(`${folder.noun} ${path} was not read: ${why}.`);
  const listing = await listConfinedFiles(folder.path, { areas: folder.areas, accept: (name) => name.endsWith(".md"), maxDepth: MAX_DEPTH, maxFiles: MAX_TEMPLATES, maxEntries: MAX_ENTRIES });
  loaded.folders.push(folder.path, ...listing.folders);
  for (const { path, failure } of listing.skipped) notice(path, describeFolderSkip(failure, folder.areaName, TEMPLATE_BUDGET));
  const oddNames: string[] = [];
  for (const { path, segments } of listing.files) {
    const name = [...segments, basename(path).slice(0, -3)].join(":");
    if (!COMMAND_NAME.test(name)) {
      oddNames.push(path);
      continue;
    }
    if (names.has(name)) continue;
    loaded.files.push(path);
    const read = await readConfinedFile(path, { areas: folder.areas, budget: TEMPLATE_BUDGET });
    if (!read.ok) {
      if (read.reason !== "missing") notice(path, describeSkip(read, folder.areaName, TEMPLATE_BUDGET));
      continue;
    }
    // What reaches the editor (the description) and the model (the body) is redacted like tool output.
    const parsed = await readFrontmatter(redact(read.text));
    if (!parsed.ok) loaded.notices.push(`${folder.noun} ${path}: ${parsed.why}; /${name} is offered without its description and hint.`);
    const fields = parsed.ok ? parsed.fields : undefined;
    const firstLine = parsed.body.trim().split(/\r?\n/)[0] ?? "";
    const hint = fields?.text("argument-hint")?.trim();
    names.add(name);
    loaded.templates.push({
      name,
      description: oneLine(fields?.text("description") ?? "") || firstLine.slice(0, 60) || name,
      ...(hint ? { hint: oneLine(hint) } : {}),
      body: parsed.body,
      path,
      rank: folder.rank,
      ignored: fields ? unhonoured(fields) : [],
    });
  }
  if (oddNames.length > 0) {
    const shown = oddNames.slice(0, 3).join(", ") + (oddNames.length > 3 ? ` and ${oddNames.length - 3} more` : "");
    loaded.notices.push(`${folder.noun}s ${shown} are not offered: a command name is letters, digits, "_", "-", "." and ":" only, at most 128 of them.`);
  }
}

/** Text shown on one line of a menu: runs of white space (new lines included) become one space. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * The templates of `folders` (in rank order): the first of a name wins, so a
 * project's template replaces a user's of the same name.
 */
export async function loadPromptTemplates(folders: readonly SetupFolder[]): Promise<LoadedTemplates> {
  const loaded: LoadedTemplates = { templates: [], notices: [], folders: [], files: [] };
  const names = new Set<string>();
  for (const folder of folders) await collect(folder, loaded, names);
  return loaded;
}
