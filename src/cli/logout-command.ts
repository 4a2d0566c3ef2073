/**
 * `acp-edge logout [PROVIDER]`: removes stored keys from `auth.json` (one
 * provider's, or all of them), other entries kept. Keys set in the
 * environment cannot be removed from here; the output says when one still
 * applies. Endpoints of `settings.json` stay (they are configuration, not
 * credentials).
 * @module
 */
import { homePaths, resolveHome } from "../config/home.ts";
import { removeApiKeys } from "../config/login-files.ts";
import { configuredProviders } from "../config/providers.ts";
import { loadUserSettings } from "../config/settings.ts";
import { printOut } from "../runtime/log.ts";
import { env } from "../runtime/process/process.ts";
import { checkProviderName } from "./login-target.ts";
import type { CliOptions } from "./options.ts";

/** Runs `acp-edge logout`; resolves with the exit code. */
export async function runLogout(options: CliOptions): Promise<number> {
  const paths = homePaths(resolveHome(options.home));
  const only = options.provider === undefined ? undefined : [checkProviderName(options.provider)];
  const removed = await removeApiKeys(paths, only);
  if (removed.length === 0) printOut(`No stored key${only ? ` for ${only[0]}` : "s"} in ${paths.auth}.\n`);
  else printOut(`Removed the stored key${removed.length > 1 ? "s" : ""} of ${removed.join(", ")} from ${paths.auth}.\n`);
  const providers = configuredProviders(await loadUserSettings(paths.settings));
  for (const provider of providers) {
    if (only && !only.includes(provider.name)) continue;
    if (provider.apiKeyEnv && env(provider.apiKeyEnv)) printOut(`Note: ${provider.apiKeyEnv} is still set in this environment and gives ${provider.name} a key.\n`);
  }
  return 0;
}
