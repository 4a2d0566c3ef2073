/**
 * Custom agents for the `task` tool, from Claude Code's agent files
 * (`.claude/agents/*.md`, `~/.claude/agents/*.md`) and the cross-agent
 * folders (`.agents/agents/`, `~/.agents/agents/`): frontmatter `name`,
 * `description` and `tools` (a comma list or a YAML list; Claude Code's
 * names such as `Read`, `Glob` or `Bash` are taken as acp-edge's), and the
 * body as the agent's system prompt. Without `tools` an agent gets the
 * read-only tools (Claude Code would give it every tool: here a file of the
 * project grants nothing on its own). Whatever it lists, its calls go through
 * the session's approval mode, rules and permission requests. `model` is not
 * honoured (subagents run on the session's model), and said so once.
 *
 * Files are read like command files and skills: through the confined reader,
 * inside the areas of their folder, at most 64 KiB each, redacted; a file that
 * cannot be read, has malformed frontmatter, a bad name or no description is
 * skipped with a notice naming it, and the first of a name (by the folders'
 * rank) wins.
 * @module
 */
import { describeFolderSkip, listConfinedFiles } from "../../runtime/files/confined-folder.ts";
import { basename } from "../../runtime/files/path.ts";
import type { SubagentProfile } from "../../tools/delegation/task.ts";
import { MAX_SETUP_DESCRIPTION, oneLine, readNamedSetupFile, SETUP_FILE_BUDGET, type LoadedSetup } from "./setup-file.ts";
import type { SetupFolder } from "./setup-places.ts";

/** A custom agent as the session found it. */
export interface AgentFile extends SubagentProfile {
  /** The file it was read from. */
  path: string;
  rank: number;
}

/** Agent files read per folder; a folder with more is told. */
const MAX_AGENTS = 100;
const MAX_ENTRIES = 2000;
const MAX_TOOLS = 64;
/** Claude Code's tool names, as acp-edge calls the same tools. */
const CLAUDE_TOOL_NAMES: Record<string, string> = {
  glob: "find",
  multiedit: "edit",
  webfetch: "fetch",
  bashoutput: "bash_output",
  killshell: "bash_stop",
  killbash: "bash_stop",
};
/** Listed with `bash`: an agent that may start a command in the background may also read and stop it. */
const WITH_BASH = ["bash_output", "bash_stop"];

/** The tools an agent file's `tools` list grants, as acp-edge names them. */
export function agentToolNames(listed: readonly string[]): string[] {
  const names = new Set(listed.map(toolName));
  if (names.has("bash")) for (const name of WITH_BASH) names.add(name);
  return [...names];
}

/** A listed tool name as acp-edge's: Claude Code's names lower-cased and mapped; MCP and other names kept as written. */
function toolName(listed: string): string {
  const lower = listed.toLowerCase();
  if (/^[a-z]+$/.test(lower)) return CLAUDE_TOOL_NAMES[lower] ?? lower;
  return listed;
}

async function collect(folder: SetupFolder, loaded: LoadedSetup<AgentFile>, names: Map<string, string>): Promise<void> {
  const listing = await listConfinedFiles(folder.path, { areas: folder.areas, accept: (name) => name.endsWith(".md"), maxDepth: 0, maxFiles: MAX_AGENTS, maxEntries: MAX_ENTRIES });
  loaded.folders.push(folder.path, ...listing.folders);
  for (const { path, failure } of listing.skipped) {
    if (failure.reason !== "too-deep") loaded.notices.push(`${folder.noun} ${path} was not read: ${describeFolderSkip(failure, folder.areaName, SETUP_FILE_BUDGET)}.`);
  }
  const found: AgentFile[] = [];
  for (const { path, segments } of listing.files) {
    if (segments.length !== 0) continue;
    const named = await readNamedSetupFile(path, folder, loaded, fileStem(path));
    if (!named) continue;
    const { fields, body, name, skipped } = named;
    const description = oneLine(fields.text("description") ?? "");
    if (!description) {
      skipped("it has no description, so the model could not tell when to use it");
      continue;
    }
    const listed = fields.has("tools") ? fields.list("tools") : undefined;
    if (listed && listed.length > MAX_TOOLS) {
      skipped(`it lists more than ${MAX_TOOLS} tools`);
      continue;
    }
    if (fields.has("model")) loaded.notices.push(`${folder.noun} ${path}: its model is not used (subagents run on the session's model).`);
    found.push({
      name,
      description: description.slice(0, MAX_SETUP_DESCRIPTION),
      instructions: body.trim(),
      ...(listed ? { tools: agentToolNames(listed) } : {}),
      path,
      rank: folder.rank,
    });
  }
  // Two files of one folder giving one name: the file named after it wins (`reviewer.md` over `reviewer-copy.md`).
  const named = (agent: AgentFile) => (fileStem(agent.path) === agent.name ? 0 : 1);
  for (const agent of found.sort((a, b) => named(a) - named(b))) {
    const earlier = names.get(agent.name);
    if (earlier !== undefined) {
      loaded.notices.push(`${folder.noun} ${agent.path} was not loaded: the agent "${agent.name}" of ${earlier} has that name.`);
      continue;
    }
    names.set(agent.name, agent.path);
    loaded.items.push(agent);
  }
}

function fileStem(path: string): string {
  return basename(path).slice(0, -3);
}

/** The custom agents of `folders` (in rank order): the first of a name wins. */
export async function loadAgentFiles(folders: readonly SetupFolder[]): Promise<LoadedSetup<AgentFile>> {
  const loaded: LoadedSetup<AgentFile> = { items: [], notices: [], folders: [], files: [] };
  const names = new Map<string, string>();
  for (const folder of folders) await collect(folder, loaded, names);
  return loaded;
}
