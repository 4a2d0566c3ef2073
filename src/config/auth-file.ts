/**
 * `<home>/auth.json`: API keys stored by the user. It must be private (0600);
 * a readable-by-others file still works but earns a warning.
 * @module
 */
import { stat } from "../runtime/fs.ts";
import { log } from "../runtime/log.ts";
import { platform } from "../runtime/process.ts";
import { registerSecret } from "../runtime/secrets.ts";
import { readJsonFile } from "./settings.ts";
import { AuthFileSchema, type AuthFile } from "./settings-schema.ts";

export async function loadAuthFile(path: string): Promise<AuthFile> {
  const auth = await readJsonFile(path, AuthFileSchema);
  if (!auth) return {};
  for (const entry of Object.values(auth)) registerSecret(entry.key);
  if (platform() !== "win32") {
    const info = await stat(path);
    if ((info.mode & 0o077) !== 0) {
      log.warn(`${path} is readable by other users (mode ${(info.mode & 0o777).toString(8)}); run: chmod 600 ${path}`);
    }
  }
  return auth;
}
