/**
 * `acp-edge login --status`: which providers have credentials and where
 * each comes from (`auth.json`, the environment, a cloud's own credential
 * chain, none needed), never a key.
 * @module
 */
import { loadAuthFile } from "../config/auth-file.ts";
import { homePaths, resolveHome } from "../config/home.ts";
import { configuredProviders, loadCloudChecks, resolveCredential } from "../config/providers.ts";
import { loadUserSettings } from "../config/settings.ts";
import { printOut } from "../runtime/log.ts";
import { env } from "../runtime/process/process.ts";
import type { CliOptions } from "./options.ts";

/** Prints one line per provider; resolves with exit code 0. */
export async function runLoginStatus(options: CliOptions): Promise<number> {
  const paths = homePaths(resolveHome(options.home));
  const [settings, auth] = await Promise.all([loadUserSettings(paths.settings), loadAuthFile(paths.auth), loadCloudChecks()]);
  const providers = configuredProviders(settings).filter((p) => p.api !== "faux");
  const width = Math.max(8, ...providers.map((p) => p.name.length));
  const lines = [`${"PROVIDER".padEnd(width)}  CREDENTIALS`];
  for (const provider of providers) {
    const credential = resolveCredential(provider, auth);
    let where: string;
    if (!credential.ok) where = `none — ${credential.hint}`;
    else if (credential.source === "auth.json") {
      const shadowed = provider.apiKeyEnv && env(provider.apiKeyEnv) ? ` (${provider.apiKeyEnv} is also set; auth.json wins)` : "";
      where = `auth.json (${paths.auth})${shadowed}`;
    } else if (credential.source === "environment") where = `environment (${provider.apiKeyEnv ?? "AWS_BEARER_TOKEN_BEDROCK"})`;
    else if (credential.source === "cloud") where = provider.api === "vertex" ? "Google Application Default Credentials" : "the AWS credential chain";
    else where = `none needed${provider.baseUrl ? ` (${provider.baseUrl})` : ""}`;
    lines.push(`${provider.name.padEnd(width)}  ${where}`);
  }
  printOut(`${lines.join("\n")}\n`);
  return 0;
}
