/**
 * Where acp-edge keeps its files: `--home`, else `ACP_EDGE_HOME`, else `~/.acp-edge`.
 * @module
 */
import { env, homeDirectory } from "../runtime/process/process.ts";
import { join, resolve } from "../runtime/files/path.ts";

export function resolveHome(option?: string): string {
  const chosen = option ?? env("ACP_EDGE_HOME");
  return chosen ? resolve(expandTilde(chosen)) : join(homeDirectory(), ".acp-edge");
}

/** Expands a leading `~/` (or a lone `~`) to the user's home directory. */
export function expandTilde(path: string): string {
  if (path === "~") return homeDirectory();
  if (path.startsWith("~/")) return join(homeDirectory(), path.slice(2));
  return path;
}

/** Where each file and folder of the home directory lives. */
export interface HomePaths {
  settings: string;
  auth: string;
  sessions: string;
  prompts: string;
  apiToken: string;
}

/** Files and folders inside the home directory. */
export function homePaths(home: string): HomePaths {
  return {
    settings: join(home, "settings.json"),
    auth: join(home, "auth.json"),
    sessions: join(home, "sessions"),
    prompts: join(home, "prompts"),
    apiToken: join(home, "api-token"),
  };
}
