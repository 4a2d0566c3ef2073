/**
 * `<home>/auth.json`: API keys stored by the user. It must be private (0600);
 * a readable-by-others file still works but earns a warning.
 * @module
 */
import { statOrUndefined } from "../runtime/files/fs.ts";
import { log } from "../runtime/log.ts";
import { platform } from "../runtime/process/process.ts";
import { registerSecret } from "../runtime/secrets.ts";
import { ConfigError, readJsonFile } from "./settings.ts";
import { AuthFileSchema, type AuthFile } from "./settings-schema.ts";

/** The keys of `auth.json` (none when it does not exist), each registered as a secret; throws `ConfigError` when it cannot be used. */
export async function loadAuthFile(path: string): Promise<AuthFile> {
  const info = await statOrUndefined(path).catch((error: unknown) => {
    throw new ConfigError(`cannot read ${path}: ${(error as Error).message}`);
  });
  if (!info) return {};
  // A FIFO or a device would block the read or never end it.
  if (!info.isFile) throw new ConfigError(`${path} is not a regular file`);
  const auth = await readJsonFile(path, AuthFileSchema);
  if (!auth) return {};
  for (const entry of Object.values(auth)) registerSecret(entry.key);
  if (platform() !== "win32" && (info.mode & 0o077) !== 0) {
    log.warn(`${path} is readable by other users (mode ${(info.mode & 0o777).toString(8)}); run: chmod 600 ${path}`);
  }
  return auth;
}
