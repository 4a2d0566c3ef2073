/**
 * Everything acp-edge reads at start-up, in one object.
 * @module
 */
import { homePaths } from "./home.ts";
import { loadAuthFile } from "./auth-file.ts";
import { fileStamp, type HomeStamps } from "./credential-files.ts";
import { loadUserSettings } from "./settings.ts";
import type { AuthFile, Settings } from "./settings-schema.ts";

export interface UserConfig {
  home: string;
  paths: ReturnType<typeof homePaths>;
  settings: Settings;
  auth: AuthFile;
  /** The files' versions as read, to tell later whether they changed (see credential-files.ts). */
  stamps: HomeStamps;
}

/** Reads `settings.json` and `auth.json` from the home directory; throws `ConfigError` when either is unusable. */
export async function loadUserConfig(home: string): Promise<UserConfig> {
  const paths = homePaths(home);
  const stamps = { settings: fileStamp(paths.settings), auth: fileStamp(paths.auth) };
  const [settings, auth] = await Promise.all([loadUserSettings(paths.settings), loadAuthFile(paths.auth)]);
  return { home, paths, settings, auth, stamps };
}
