/**
 * The tools a session offers the model: the built-ins, `skill` while the
 * session has skills to list, `task` (subagents, listing the session's custom
 * agents), and the tools of its MCP servers available now.
 * @module
 */
import { createBuiltinTools } from "../tools/builtin.ts";
import { createSkillTool } from "../tools/skill.ts";
import { createTaskTool, MAX_LISTED_AGENTS } from "../tools/delegation/task.ts";
import type { ToolDefinition } from "../tools/types.ts";
import type { LiveSession } from "./live-session.ts";
import { listedSkills } from "./session-system-prompt.ts";
import { loadSkill } from "./setup/skill-loading.ts";


const skillTools = new WeakMap<LiveSession, ToolDefinition>();
const searchTools = new WeakMap<LiveSession, ToolDefinition>();

/** Offers `tool` (the search service's `web_search`) among the built-ins of `live`; set once, as the session opens. */
export function offerSearchService(live: LiveSession, tool: ToolDefinition): void {
  searchTools.set(live, tool);
  builtinsOf.delete(live);
}
const builtinsOf = new WeakMap<LiveSession, ToolDefinition[]>();

/** The built-ins of `live`: its `fetch` reaches the hosts the user's settings allow, within their time bound; `web_search` on the user's service. */
function builtinToolsOf(live: LiveSession): ToolDefinition[] {
  let tools = builtinsOf.get(live);
  if (!tools) {
    const fetch = live.settings.fetch;
    tools = createBuiltinTools({ allowHosts: fetch?.allowHosts ?? [], ...(fetch?.timeoutSeconds !== undefined ? { timeoutMs: fetch.timeoutSeconds * 1000 } : {}) });
    // The search service's tool, when the user named one (a model whose provider searches by itself is not offered it).
    const search = searchTools.get(live);
    if (search) tools = [...tools, search];
    builtinsOf.set(live, tools);
  }
  return tools;
}

/** The `skill` tool of `live`, over its skills as they are when the model calls it. */
function skillToolOf(live: LiveSession): ToolDefinition {
  let tool = skillTools.get(live);
  if (!tool) {
    tool = createSkillTool({
      async load(name) {
        const skill = live.skills.find((s) => s.name === name && s.modelInvocable);
        if (!skill) {
          const names = listedSkills(live.skills).map((s) => s.name);
          return { ok: false, message: `There is no skill named "${name}". Skills: ${names.length > 0 ? names.join(", ") : "none"}.` };
        }
        const loaded = await loadSkill(live, skill);
        return loaded.ok ? { ok: true, text: loaded.text, file: skill.file } : { ok: false, message: `The skill "${name}" could not be loaded: ${loaded.why}.` };
      },
    });
    skillTools.set(live, tool);
  }
  return tool;
}

const taskTools = new WeakMap<LiveSession, { agents: LiveSession["agents"]; tool: ToolDefinition }>();

/** The `task` tool of `live`, made again when its custom agents changed (its description lists them). */
function taskToolOf(live: LiveSession): ToolDefinition {
  const agents = live.agents;
  const made = taskTools.get(live);
  if (made && made.agents === agents) return made.tool;
  const tool = createTaskTool({
    listed: agents,
    async find(name) {
      const agent = live.agents.find((a) => a.name === name);
      if (agent) return { ok: true, agent };
      // Named within the same bound as the tool's listing.
      const names = live.agents.slice(0, MAX_LISTED_AGENTS).map((a) => a.name);
      const more = live.agents.length - names.length;
      const known = names.length > 0 ? `${names.join(", ")}${more > 0 ? ` and ${more} more` : ""}` : "none (leave agent out for the default subagent)";
      return { ok: false, message: `There is no agent named "${name.slice(0, 64)}". Agents: ${known}.` };
    },
  });
  taskTools.set(live, { agents, tool });
  return tool;
}

/** Every tool `live` offers now (`diagnostics` once one of its language servers has started). */
export function sessionTools(live: LiveSession): ToolDefinition[] {
  const skill = listedSkills(live.skills).length > 0 ? [skillToolOf(live)] : [];
  return [...builtinToolsOf(live), ...skill, taskToolOf(live), ...(live.languageServers?.tools() ?? []), ...(live.mcp?.tools() ?? [])];
}
