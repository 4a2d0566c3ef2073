/**
 * Prompt templates: Markdown files under `<home>/prompts/` and
 * `<cwd>/.acp-edge/prompts/` (any depth) become slash commands. The file
 * name (with sub-folders joined by `:`) is the command; an optional
 * frontmatter `description` is shown in the editor's command list. Folders
 * and files are read with `listConfinedFiles` and `readConfinedFile`: what
 * leads outside, is not a regular file or is too large is left out, with a
 * notice naming it and the reason.
 * @module
 */
import { describeSkip, readConfinedFile, resolveAreas } from "../runtime/confined-file.ts";
import { describeFolderSkip, listConfinedFiles } from "../runtime/confined-folder.ts";
import { basename, join } from "../runtime/path.ts";
import { redact } from "../runtime/secrets.ts";

/** A prompt template: its command name, description, body and file. */
export interface PromptTemplate {
  name: string;
  description: string;
  body: string;
  path: string;
}

const MAX_DEPTH = 4;
const MAX_TEMPLATES = 200;
/** Directory entries looked at per folder tree: a prompts folder of a million files costs no more. */
const MAX_ENTRIES = 5000;
/** A template larger than this is not read. */
const TEMPLATE_BUDGET = 64 * 1024;

/** Splits `---\nkey: value\n---\nbody` into simple key/value pairs and the body. */
export function parseFrontmatter(text: string): { attributes: Record<string, string>; body: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!match) return { attributes: {}, body: text };
  const attributes: Record<string, string> = {};
  for (const line of match[1]!.split(/\r?\n/)) {
    const pair = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(line);
    if (pair) attributes[pair[1]!] = pair[2]!.trim().replace(/^(["'])(.*)\1$/, "$2");
  }
  return { attributes, body: match[2]! };
}

/** Templates of the user and of the project, and notices about files that were found but not read. */
export interface LoadedTemplates {
  templates: PromptTemplate[];
  notices: string[];
}

/** Where templates are looked for, and where their files may lead. */
interface TemplateFolder {
  path: string;
  areas: readonly string[];
  areaName: string;
}

async function collect(folder: TemplateFolder, out: PromptTemplate[], notices: string[]): Promise<void> {
  const listing = await listConfinedFiles(folder.path, {
    areas: folder.areas,
    accept: (name) => name.endsWith(".md"),
    maxDepth: MAX_DEPTH,
    maxFiles: MAX_TEMPLATES,
    maxEntries: MAX_ENTRIES,
  });
  for (const { path, failure } of listing.skipped) notices.push(templateNotice(path, describeFolderSkip(failure, folder.areaName, TEMPLATE_BUDGET)));
  for (const { path, segments } of listing.files) {
    const file = basename(path);
    const name = [...segments, file.slice(0, -3)].join(":");
    if (!/^[A-Za-z0-9][\w:.-]*$/.test(name)) continue;
    const read = await readConfinedFile(path, { areas: folder.areas, budget: TEMPLATE_BUDGET });
    if (!read.ok) {
      if (read.reason !== "missing") notices.push(templateNotice(path, describeSkip(read, folder.areaName, TEMPLATE_BUDGET)));
      continue;
    }
    // What reaches the editor (the description) and the model (the body) is redacted like tool output.
    const { attributes, body } = parseFrontmatter(redact(read.text));
    const firstLine = body.trim().split(/\r?\n/)[0] ?? "";
    out.push({ name, description: attributes.description || firstLine.slice(0, 60) || name, body, path });
  }
}

function templateNotice(path: string, why: string): string {
  return `Prompt template ${path} was not read: ${why}.`;
}

/**
 * Templates of the user (`<home>/prompts`, whose files must stay inside the
 * home) and of the project (`<cwd>/.acp-edge/prompts`, whose files must stay
 * inside the session's roots); a project template replaces a user one of the
 * same name. `roots` are the session's resolved roots.
 */
export async function loadPromptTemplates(home: string, cwd: string, roots: readonly string[]): Promise<LoadedTemplates> {
  const user: PromptTemplate[] = [];
  const project: PromptTemplate[] = [];
  const notices: string[] = [];
  const homeAreas = await resolveAreas([home]);
  await collect({ path: join(home, "prompts"), areas: homeAreas, areaName: "the acp-edge home" }, user, notices);
  await collect({ path: join(cwd, ".acp-edge", "prompts"), areas: roots, areaName: "the session's folders" }, project, notices);
  const byName = new Map<string, PromptTemplate>();
  for (const template of [...user, ...project]) byName.set(template.name, template);
  return { templates: [...byName.values()], notices };
}
