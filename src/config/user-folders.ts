/**
 * The user's own folders of other agents, whose instructions, commands and
 * skills acp-edge reads too: Claude Code's (`CLAUDE_CONFIG_DIR`, which Claude
 * Code itself honours, else `~/.claude`) and the cross-agent `~/.agents`.
 * @module
 */
import { isAbsolute, join } from "../runtime/files/path.ts";
import { env, userHomeDirectory } from "../runtime/process/process.ts";

/** Where the user keeps other agents' setup; a folder is absent when the home directory cannot be told. */
export interface UserAgentFolders {
  /** Claude Code's folder: `CLAUDE.md`, `commands/`, `skills/`. */
  claude?: string;
  /** The cross-agent folder: `AGENTS.md`, `skills/`. */
  agents?: string;
}

/** The user's Claude Code and cross-agent folders (they may not exist). */
export function userAgentFolders(): UserAgentFolders {
  const home = userHomeDirectory();
  const configured = env("CLAUDE_CONFIG_DIR");
  // A relative value would point into whatever folder the agent was started in.
  const claude = configured !== undefined && isAbsolute(configured) ? configured : home === undefined ? undefined : join(home, ".claude");
  return { ...(claude ? { claude } : {}), ...(home === undefined ? {} : { agents: join(home, ".agents") }) };
}
