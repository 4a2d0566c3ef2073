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
import { describeFolderSkip, listConfinedFiles } from "../../runtime/files/confined-folder.ts";
import { basename } from "../../runtime/files/path.ts";
import { oneLine, readListedFile, SETUP_FILE_BUDGET, unhonoured, type LoadedSetup, type OfferedFile } from "./setup-file.ts";
import type { SetupFolder } from "./setup-places.ts";

/** A prompt template: what the editor lists, and its body and file. */
export interface PromptTemplate extends OfferedFile {
  body: string;
  path: string;
}

const MAX_DEPTH = 4;
const MAX_TEMPLATES = 200;
/** Directory entries looked at per folder tree: a folder of a million files costs no more. */
const MAX_ENTRIES = 5000;
/** What a command name may be: what `parseSlashCommand` accepts, of a length a command menu can show. */
const COMMAND_NAME = /^[A-Za-z0-9][\w:.-]{0,127}$/;

async function collect(folder: SetupFolder, loaded: LoadedSetup<PromptTemplate>, names: Set<string>): Promise<void> {
  const notice = (path: string, why: string) => loaded.notices.push(`${folder.noun} ${path} was not read: ${why}.`);
  const listing = await listConfinedFiles(folder.path, { areas: folder.areas, accept: (name) => name.endsWith(".md"), maxDepth: MAX_DEPTH, maxFiles: MAX_TEMPLATES, maxEntries: MAX_ENTRIES });
  loaded.folders.push(folder.path, ...listing.folders);
  for (const { path, failure } of listing.skipped) notice(path, describeFolderSkip(failure, folder.areaName, SETUP_FILE_BUDGET));
  const oddNames: string[] = [];
  for (const { path, segments } of listing.files) {
    const name = [...segments, basename(path).slice(0, -3)].join(":");
    if (!COMMAND_NAME.test(name)) {
      oddNames.push(path);
      continue;
    }
    if (names.has(name)) continue;
    const parsed = await readListedFile(path, folder.noun, folder.areas, folder.areaName, loaded);
    if (!parsed) continue;
    if (!parsed.ok) loaded.notices.push(`${folder.noun} ${path}: ${parsed.why}; /${name} is offered without its description and hint.`);
    const fields = parsed.ok ? parsed.fields : undefined;
    const firstLine = parsed.body.trim().split(/\r?\n/)[0] ?? "";
    const hint = fields?.text("argument-hint")?.trim();
    names.add(name);
    loaded.items.push({
      name,
      description: oneLine(fields?.text("description") ?? "") || oneLine(firstLine).slice(0, 60) || name,
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

/**
 * The templates of `folders` (in rank order): the first of a name wins, so a
 * project's template replaces a user's of the same name.
 */
export async function loadPromptTemplates(folders: readonly SetupFolder[]): Promise<LoadedSetup<PromptTemplate>> {
  const loaded: LoadedSetup<PromptTemplate> = { items: [], notices: [], folders: [], files: [] };
  const names = new Set<string>();
  for (const folder of folders) await collect(folder, loaded, names);
  return loaded;
}
