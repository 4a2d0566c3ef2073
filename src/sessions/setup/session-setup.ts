/**
 * A live session's command files and skills follow the disk, like its
 * context files: read when the session opens, and before each prompt checked
 * with one stat per folder and file read (see `path-stamps.ts`) — read again
 * only when one changed. Then the clients get a new
 * `available_commands_update` when the commands changed, and the model a new
 * system prompt (and the `skill` tool, or not) when the skills listed
 * changed. A file found but not used is told once per session, by path and
 * reason, as is what a command file asks for that is not honoured.
 * @module
 */
import { pathsChanged, stampPaths, type PathStamps } from "../../runtime/files/path-stamps.ts";
import type { LiveSession } from "../live-session.ts";
import { loadAgentFiles, type AgentFile } from "./agent-files.ts";
import { loadPromptTemplates, type PromptTemplate } from "./prompt-templates.ts";
import { broadcast } from "../session-broadcast.ts";
import { rebuildSystemPrompt } from "../session-context.ts";
import { markTold, tellOnce } from "../session-notices.ts";
import { listedSkills } from "../session-system-prompt.ts";
import { sessionTools } from "../session-tools.ts";
import type { SetupPlaces } from "./setup-places.ts";
import { loadSkills, type Skill } from "./skills.ts";
import { availableCommands, isBuiltinName } from "../commands/slash-commands.ts";

/** The command files and skills read for a session, what to tell about them, and the stamp to compare against. */
export interface SessionSetup {
  templates: PromptTemplate[];
  skills: Skill[];
  agents: AgentFile[];
  notices: string[];
  stamp: PathStamps;
}

interface SetupSource {
  places: SetupPlaces;
  stamp: PathStamps;
}

const sources = new WeakMap<LiveSession, SetupSource>();

/** Notices for files whose command a built-in takes the place of. */
function shadowNotices(templates: readonly PromptTemplate[], skills: readonly Skill[]): string[] {
  const files = [...templates.map((t) => ({ name: t.name, path: t.path })), ...skills.filter((s) => s.userInvocable).map((s) => ({ name: s.name, path: s.file }))];
  return files.filter((f) => isBuiltinName(f.name)).map((f) => `/${f.name} from ${f.path} is not offered: the built-in /${f.name} keeps that name.`);
}

/** Reads a session's command files and skills, with the stamp `refreshSetup` compares against. */
export async function readSetup(places: SetupPlaces): Promise<SessionSetup> {
  // Stamped as of the start of reading: whatever changes while the folders are walked is read again next time.
  const readAt = Date.now();
  const [templates, skills, agents] = await Promise.all([loadPromptTemplates(places.templates), loadSkills(places.skills), loadAgentFiles(places.agents)]);
  const stamp = await stampPaths([], [...templates.folders, ...skills.folders, ...agents.folders, ...templates.files, ...skills.files, ...agents.files], readAt);
  const notices = [...templates.notices, ...skills.notices, ...agents.notices, ...shadowNotices(templates.items, skills.items)];
  return { templates: templates.items, skills: skills.items, agents: agents.items, notices, stamp };
}

/** Remembers where a live session's command files and skills come from (its notices are being told by the caller). */
export function trackSetup(live: LiveSession, places: SetupPlaces, setup: SessionSetup): void {
  sources.set(live, { places, stamp: setup.stamp });
  markTold(live, setup.notices);
}

/** Reads the command files and skills again when any changed, and tells the clients and the model what changed. */
export async function refreshSetup(live: LiveSession): Promise<void> {
  const source = sources.get(live);
  if (!source || !(await pathsChanged(source.stamp))) return;
  const setup = await readSetup(source.places);
  const commandsBefore = JSON.stringify(availableCommands(live));
  const listingBefore = JSON.stringify(listedSkills(live.skills));
  const agentsBefore = JSON.stringify(live.agents);
  live.offerCommandFiles(setup.templates, setup.skills, setup.agents);
  source.stamp = setup.stamp;
  for (const notice of setup.notices) tellOnce(live, notice);
  if (JSON.stringify(listedSkills(live.skills)) !== listingBefore) {
    live.offerTools(sessionTools(live));
    rebuildSystemPrompt(live);
  } else if (JSON.stringify(live.agents) !== agentsBefore) {
    // The task tool lists the agents in its description.
    live.offerTools(sessionTools(live));
  }
  if (JSON.stringify(availableCommands(live)) !== commandsBefore) await broadcast(live, { type: "commands" });
}
