/**
 * Prompt templates: Markdown files under `<home>/prompts/` and
 * `<cwd>/.acp-edge/prompts/` (any depth) become slash commands. The file
 * name (with sub-folders joined by `:`) is the command; an optional
 * frontmatter `description` is shown in the editor's command list.
 * @module
 */
import { isNotFound, readDir, readTextFile } from "../runtime/fs.ts";
import { join } from "../runtime/path.ts";
import { log } from "../runtime/log.ts";

/** A prompt template: its command name, description, body and file. */
export interface PromptTemplate {
  name: string;
  description: string;
  body: string;
  path: string;
}

const MAX_DEPTH = 4;
const MAX_TEMPLATES = 200;

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

async function collect(root: string, prefix: string[], depth: number, out: PromptTemplate[]): Promise<void> {
  let entries;
  try {
    entries = await readDir(root);
  } catch (error) {
    if (!isNotFound(error)) log.warn(`cannot read prompt templates in ${root}`, error);
    return;
  }
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (out.length >= MAX_TEMPLATES || entry.name.startsWith(".")) continue;
    const path = join(root, entry.name);
    if (entry.isDirectory && depth < MAX_DEPTH) {
      await collect(path, [...prefix, entry.name], depth + 1, out);
    } else if (entry.isFile && entry.name.endsWith(".md")) {
      const name = [...prefix, entry.name.slice(0, -3)].join(":");
      if (!/^[A-Za-z0-9][\w:.-]*$/.test(name)) continue;
      try {
        const { attributes, body } = parseFrontmatter(await readTextFile(path));
        const firstLine = body.trim().split(/\r?\n/)[0] ?? "";
        out.push({ name, description: attributes.description || firstLine.slice(0, 60) || name, body, path });
      } catch (error) {
        log.warn(`cannot read prompt template ${path}`, error);
      }
    }
  }
}

/** Templates of the user and of the project; a project template replaces a user one of the same name. */
export async function loadPromptTemplates(home: string, cwd: string): Promise<PromptTemplate[]> {
  const user: PromptTemplate[] = [];
  const project: PromptTemplate[] = [];
  await collect(join(home, "prompts"), [], 0, user);
  await collect(join(cwd, ".acp-edge", "prompts"), [], 0, project);
  const byName = new Map<string, PromptTemplate>();
  for (const template of [...user, ...project]) byName.set(template.name, template);
  return [...byName.values()];
}
