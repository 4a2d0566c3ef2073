/**
 * Everything acp-edge reads at start-up, in one object.
 * @module
 */
import { homePaths } from "./home.ts";
import { loadAuthFile } from "./auth-file.ts";
import { loadUserSettings } from "./settings.ts";
import type { AuthFile, Settings } from "./settings-schema.ts";

export interface UserConfig {
  home: string;
  paths: ReturnType<typeof homePaths>;
  settings: Settings;
  auth: AuthFile;
}

/** Reads `settings.json` and `auth.json` from the home directory; throws `ConfigError` when either is unusable. */
export async function loadUserConfig(home: string): Promise<UserConfig> {
  const paths = homePaths(home);
  const [settings, auth] = await Promise.all([loadUserSettings(paths.settings), loadAuthFile(paths.auth)]);
  return { home, paths, settings, auth };
}
