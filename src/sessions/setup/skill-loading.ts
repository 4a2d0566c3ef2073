/**
 * Loading one skill for a session — by the model (the `skill` tool) or by the
 * user (`/skill-name args`): its `SKILL.md` read again through the confined
 * reader, the files beside it listed, and, when its folder lies outside the
 * session's roots (a skill of the user's own), the session granted read
 * access to that folder: its files are read without a permission request from
 * then on, as the instructions expect. Only reading: writing there still
 * asks. The grant is an ordinary session grant — labelled with the folder and
 * the skill, recorded in the session file, restored with it — and a deny rule
 * still wins over it.
 * @module
 */
import type { Grant } from "../../permissions/grants.ts";
import { resolveAreas } from "../../runtime/files/confined-file.ts";
import { listConfinedFiles } from "../../runtime/files/confined-folder.ts";
import { containingRoot, relative } from "../../runtime/files/path.ts";
import type { LiveSession } from "../live-session.ts";
import { readSetupFile, unhonouredNotice } from "./setup-file.ts";
import { tellOnce } from "../session-notices.ts";
import { shellLines, shellLinesNote } from "./shell-lines.ts";
import type { Skill } from "./skills.ts";
import { expandTemplate } from "../commands/slash-arguments.ts";

/** A skill's instructions and files as the model reads them, or why it could not be loaded. */
export type SkillLoad = { ok: true; text: string } | { ok: false; why: string };

const MAX_LISTED_FILES = 100;
const MAX_FILE_ENTRIES = 2000;
const MAX_FILE_DEPTH = 3;

/** The session's grant of read access to a skill's folder. */
function skillGrant(skill: Skill, folder: string): Grant {
  return { effect: "allow", class: "read", scope: { kind: "path", prefix: folder }, label: `Read files in ${folder} without asking (the skill "${skill.name}" was loaded)` };
}

/** The files in the skill's folder, relative to it (SKILL.md aside), and whether there were more than listed. */
async function filesBeside(skill: Skill): Promise<{ files: string[]; more: boolean }> {
  const listing = await listConfinedFiles(skill.folder, { areas: skill.areas, accept: () => true, maxDepth: MAX_FILE_DEPTH, maxFiles: MAX_LISTED_FILES + 1, maxEntries: MAX_FILE_ENTRIES });
  const files = listing.files.map((f) => relative(skill.folder, f.path).split("\\").join("/")).filter((f) => f !== "SKILL.md");
  const more = files.length > MAX_LISTED_FILES || listing.skipped.some((s) => s.failure.reason === "too-many" || s.failure.reason === "too-deep");
  return { files: files.slice(0, MAX_LISTED_FILES), more };
}

/**
 * Loads `skill` for `live`: its instructions (with `rawArguments` put in, when
 * the user ran it as a command), the files beside it, and read access to its
 * folder when that is outside the session's roots.
 */
export async function loadSkill(live: LiveSession, skill: Skill, rawArguments?: string): Promise<SkillLoad> {
  const read = await readSetupFile(skill.file, skill.areas, skill.areaName);
  if (!read.ok) return { ok: false, why: `${skill.file} ${read.missing ? "no longer exists" : `was not read: ${read.why}`}` };
  const { parsed } = read;
  if (!parsed.ok) return { ok: false, why: `${skill.file}: ${parsed.why}` };
  const [folder] = await resolveAreas([skill.folder]);
  if (folder === undefined) return { ok: false, why: `${skill.folder} no longer exists` };
  let body = parsed.body.trim();
  if (rawArguments !== undefined && rawArguments.trim() !== "") {
    // As Claude Code does: `$ARGUMENTS` in the instructions takes them; otherwise they follow the instructions.
    body = /\$ARGUMENTS\b/.test(body) ? expandTemplate(body, rawArguments) : `${body}\n\nARGUMENTS: ${rawArguments.trim()}`;
  }
  const { files, more } = await filesBeside(skill);
  const outside = containingRoot(folder, live.agent.workspace.roots) === undefined;
  if (outside) {
    const grant = skillGrant(skill, folder);
    const held = live.grants.some((g) => g.effect === "allow" && g.class === "read" && g.scope.kind === "path" && g.scope.prefix === folder);
    if (!held) await live.grant(grant);
  }
  const notice = unhonouredNotice(skill.name, skill.file, skill.ignored, shellLines(body).length > 0);
  if (notice) tellOnce(live, notice);
  const lines = [`<skill name="${skill.name}" folder="${skill.folder}">`, body, "</skill>"];
  const note = shellLinesNote(body);
  if (note) lines.push("", note);
  if (files.length > 0) {
    lines.push("", `Files beside SKILL.md in ${skill.folder} (read them with the read tool when the instructions call for them):`, ...files.map((f) => `- ${f}`));
    if (more) lines.push("- … (more files, not listed)");
  }
  if (outside) lines.push("", `The files in ${skill.folder} can be read without asking for the rest of this session (reading only).`);
  return { ok: true, text: lines.join("\n") };
}
