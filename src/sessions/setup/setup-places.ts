/**
 * Where a session looks for what users bring from other agents and keep for
 * acp-edge: instructions, command files and skills — the project's in the
 * session's cwd, the user's in the acp-edge home and in the user's Claude
 * Code and cross-agent folders — and where the files found there may lead.
 *
 * When two give the same command or skill name, the lower rank wins:
 * the project's before the user's (a project's file is written for this
 * project); at each level acp-edge's own prompts first (written for this
 * agent), then skills, `.agents/skills` (written for any agent) before
 * `.claude/skills` (which may count on Claude Code's own features), then
 * Claude Code's commands (Claude Code, too, lets a skill win over a command
 * of the same name). Built-in commands always win (see `slash-commands.ts`).
 * @module
 */
import type { UserAgentFolders } from "../../config/user-folders.ts";
import { INSTRUCTION_FILE_NAMES, type UserInstructionFolder } from "../../engine/context-files.ts";
import { resolveAreas } from "../../runtime/files/confined-file.ts";
import { join } from "../../runtime/files/path.ts";

/** A folder of command files or skills: where its files may lead, whose it is and how it ranks. */
export interface SetupFolder {
  path: string;
  /** Resolved folders its files must lead into. */
  areas: readonly string[];
  /** How notices name the areas. */
  areaName: string;
  origin: "project" | "user";
  /** Lower wins when two folders give the same name. */
  rank: number;
  /** How notices name one of its files. */
  noun: string;
}

/** The folders of command files, of skills and of custom agents, each list in rank order. */
export interface SetupPlaces {
  templates: readonly SetupFolder[];
  skills: readonly SetupFolder[];
  agents: readonly SetupFolder[];
}

const HOME_AREA = "the acp-edge home";
const AGENT_FOLDERS_AREA = "your Claude and .agents folders";
const PROJECT_AREA = "the session's folders";

/** The user's folders searched for instructions, the most general first: `~/.agents`, Claude Code's, the acp-edge home. */
export function userInstructionFolders(home: string, user: UserAgentFolders): UserInstructionFolder[] {
  const agentAreas = [user.claude, user.agents].filter((p): p is string => p !== undefined);
  return [
    ...(user.agents ? [{ path: user.agents, names: ["AGENTS.md"], areas: agentAreas, areaName: AGENT_FOLDERS_AREA }] : []),
    ...(user.claude ? [{ path: user.claude, names: ["CLAUDE.md"], areas: agentAreas, areaName: AGENT_FOLDERS_AREA }] : []),
    { path: home, names: INSTRUCTION_FILE_NAMES, areas: [home], areaName: HOME_AREA },
  ];
}

/**
 * The folders of a session's command files and skills. `roots` are the
 * session's resolved roots; a project's files stay inside them, the acp-edge
 * home's inside the home (it holds keys and sessions, so nothing else leads
 * into it), the Claude and `.agents` folders' inside those two.
 */
export async function setupPlaces(home: string, cwd: string, roots: readonly string[], user: UserAgentFolders): Promise<SetupPlaces> {
  const homeAreas = await resolveAreas([home]);
  const agentAreas = await resolveAreas([user.claude, user.agents].filter((p): p is string => p !== undefined));
  const project = (path: string, rank: number, noun: string): SetupFolder => ({ path, areas: roots, areaName: PROJECT_AREA, origin: "project", rank, noun });
  const mine = (path: string, rank: number, noun: string): SetupFolder => ({ path, areas: agentAreas, areaName: AGENT_FOLDERS_AREA, origin: "user", rank, noun });
  const templates: SetupFolder[] = [
    project(join(cwd, ".acp-edge", "prompts"), 0, "Prompt template"),
    project(join(cwd, ".claude", "commands"), 3, "Command file"),
    { path: join(home, "prompts"), areas: homeAreas, areaName: HOME_AREA, origin: "user", rank: 4, noun: "Prompt template" },
    ...(user.claude ? [mine(join(user.claude, "commands"), 7, "Command file")] : []),
  ];
  const skills: SetupFolder[] = [
    project(join(cwd, ".agents", "skills"), 1, "Skill"),
    project(join(cwd, ".claude", "skills"), 2, "Skill"),
    ...(user.agents ? [mine(join(user.agents, "skills"), 5, "Skill")] : []),
    ...(user.claude ? [mine(join(user.claude, "skills"), 6, "Skill")] : []),
  ];
  // Agents rank like skills: the project's before the user's, `.agents` (for any agent) before `.claude`.
  const agents: SetupFolder[] = [
    project(join(cwd, ".agents", "agents"), 1, "Agent file"),
    project(join(cwd, ".claude", "agents"), 2, "Agent file"),
    ...(user.agents ? [mine(join(user.agents, "agents"), 5, "Agent file")] : []),
    ...(user.claude ? [mine(join(user.claude, "agents"), 6, "Agent file")] : []),
  ];
  return { templates, skills, agents };
}
