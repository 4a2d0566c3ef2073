/**
 * Agent Skills: a folder holding `SKILL.md` (frontmatter `name` and
 * `description`, then instructions) and any files its instructions use,
 * found one level below each skills folder (`.agents/skills/`,
 * `.claude/skills/`, `~/.agents/skills/`, `~/.claude/skills/`). Only the
 * listing is read here — name, description, hint and flags — so the system
 * prompt can name each skill; its instructions are read when it is loaded
 * (`skill-loading.ts`).
 *
 * The name follows the Agent Skills rules (1–64 lowercase letters, digits and
 * single hyphens, not at either end); without one the folder's name is used,
 * as Claude Code does. Without a description the first line of the
 * instructions stands in, as Claude Code does; one longer than 1024
 * characters is cut there. A skill whose file cannot be read, whose
 * frontmatter is malformed or whose name breaks the rules is skipped with a
 * notice; the session carries on.
 * @module
 */
import { describeFolderSkip, listConfinedFiles } from "../../runtime/files/confined-folder.ts";
import { basename, dirname } from "../../runtime/files/path.ts";
import { MAX_SETUP_DESCRIPTION, oneLine, readNamedSetupFile, SETUP_FILE_BUDGET, unhonoured, type LoadedSetup, type OfferedFile } from "./setup-file.ts";
import type { SetupFolder } from "./setup-places.ts";

/** A skill as listed: enough to name it to the model and the editor, and to find its files. */
export interface Skill extends OfferedFile {
  /** The `SKILL.md` file, as found. */
  file: string;
  /** Its folder, as found. */
  folder: string;
  /** Resolved folders its files must lead into, and how notices name them. */
  areas: readonly string[];
  areaName: string;
  origin: "project" | "user";
  /** False with `disable-model-invocation: true`: not listed to the model, offered as a command only. */
  modelInvocable: boolean;
  /** False with `user-invocable: false`: listed to the model, not offered as a command. */
  userInvocable: boolean;
}

/** Skills per skills folder; a folder with more is told. */
const MAX_SKILLS = 200;
/** Directory entries looked at per skills folder, the skills' own top-level entries included. */
const MAX_ENTRIES = 10_000;
const SKILL_FILE = "SKILL.md";

async function collect(folder: SetupFolder, loaded: LoadedSetup<Skill>, names: Set<string>): Promise<void> {
  const notice = (path: string, why: string) => loaded.notices.push(`${folder.noun} ${path} was not read: ${why}.`);
  const listing = await listConfinedFiles(folder.path, { areas: folder.areas, accept: (name) => name === SKILL_FILE, maxDepth: 1, maxFiles: MAX_SKILLS, maxEntries: MAX_ENTRIES });
  loaded.folders.push(folder.path, ...listing.folders);
  for (const { path, failure } of listing.skipped) {
    // Inside a skill's own folder only SKILL.md matters: its sub-folders and links are the skill's business until it is loaded.
    const aboutSkill = path === folder.path || dirname(path) === folder.path || basename(path) === SKILL_FILE;
    if (aboutSkill && failure.reason !== "too-deep") notice(path, describeFolderSkip(failure, folder.areaName, SETUP_FILE_BUDGET));
  }
  for (const { path, segments } of listing.files) {
    if (segments.length !== 1) continue;
    const named = await readNamedSetupFile(path, folder, loaded, segments[0]!);
    if (!named) continue;
    const { fields, body, name, skipped } = named;
    if (names.has(name)) continue;
    const description = oneLine(fields.text("description") ?? "") || firstLine(body);
    if (!description) {
      skipped("it has no description, so the model could not tell when to use it");
      continue;
    }
    const hint = fields.text("argument-hint")?.trim();
    names.add(name);
    loaded.items.push({
      name,
      description: description.slice(0, MAX_SETUP_DESCRIPTION),
      ...(hint ? { hint: oneLine(hint) } : {}),
      file: path,
      folder: dirname(path),
      areas: folder.areas,
      areaName: folder.areaName,
      origin: folder.origin,
      rank: folder.rank,
      modelInvocable: fields.flag("disable-model-invocation") !== true,
      userInvocable: fields.flag("user-invocable") !== false,
      ignored: unhonoured(fields),
    });
  }
}

/** The first line of text that is not a heading, on one line. */
function firstLine(body: string): string {
  const line = body.split(/\r?\n/).find((l) => l.trim() !== "" && !l.trimStart().startsWith("#"));
  return oneLine(line ?? "");
}

/** The skills of `folders` (in rank order): the first of a name wins. */
export async function loadSkills(folders: readonly SetupFolder[]): Promise<LoadedSetup<Skill>> {
  const loaded: LoadedSetup<Skill> = { items: [], notices: [], folders: [], files: [] };
  const names = new Set<string>();
  for (const folder of folders) await collect(folder, loaded, names);
  return loaded;
}
