/**
 * The environment a hook runs in. Claude Code passes its own environment on,
 * and a hook written for it may count on that (a `PATH`, a token its script
 * reads). acp-edge does the same with the environment the user started it
 * in, plus `CLAUDE_PROJECT_DIR`. Keys the agent keeps in its home
 * (`auth.json`) live only in its memory, never in its environment, so a hook
 * gets none the user's environment did not already hold; the token of
 * `agent serve` is taken out, as it would let a hook drive the agent itself.
 * @module
 */
import { envSnapshot } from "../../runtime/process/process.ts";

/** Variables a hook never gets, whatever the user's environment holds. */
const WITHHELD = ["ACP_EDGE_TOKEN"];

export function hookEnvironment(projectDir: string): Record<string, string> {
  const env = envSnapshot();
  for (const name of WITHHELD) delete env[name];
  env.CLAUDE_PROJECT_DIR = projectDir;
  return env;
}
