/**
 * The clouds' credential files that environment variables point at: the
 * service-account key `GOOGLE_APPLICATION_CREDENTIALS` names, the AWS shared
 * files and web-identity token, and gcloud's and Azure's CLI folders when
 * moved elsewhere. A confined command gets neither the variables nor the
 * files (the default places under the home directory are hidden anyway).
 * A variable's value is taken as a hint, not an order: only a path that
 * exists and is of the kind the variable names is hidden, and a folder is
 * never covered whole when that would cover the file system, the home
 * directory or a session folder — then only the clouds' known credential
 * files inside it are.
 * @module
 */
import { realPath, statOrUndefined } from "../runtime/files/fs.ts";
import { isWithin, join, resolve } from "../runtime/files/path.ts";
import { currentDirectory, env } from "../runtime/process/process.ts";

/** Variables naming one credential file. */
const FILE_VARIABLES = ["GOOGLE_APPLICATION_CREDENTIALS", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE", "AWS_WEB_IDENTITY_TOKEN_FILE"] as const;

/** Variables naming a CLI's configuration folder, with the credential files the CLI keeps in it. */
const FOLDER_VARIABLES: Record<string, readonly string[]> = {
  CLOUDSDK_CONFIG: ["application_default_credentials.json", "credentials.db", "access_tokens.db", "legacy_credentials"],
  AZURE_CONFIG_DIR: ["msal_token_cache.json", "msal_token_cache.bin", "accessTokens.json", "service_principal_entries.json", "service_principal_entries.bin"],
};

/** Every variable that points at a cloud credential file or folder: a confined command does not get them. */
export const CLOUD_CREDENTIAL_PATH_VARIABLES: readonly string[] = [...FILE_VARIABLES, ...Object.keys(FOLDER_VARIABLES)];

/**
 * The credential files and folders the variables point at, symlink-free, that exist and are of the
 * kind each variable names. `keepVisible` are the folders a covered folder must not contain or be
 * (the home directory, the session's folders): such a folder is not covered, its credential files are.
 */
export async function cloudCredentialPaths(keepVisible: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const name of FILE_VARIABLES) {
    const file = await existing(env(name));
    if (file?.kind === "file") found.push(file.real);
  }
  const visible = await Promise.all(keepVisible.map(async (path) => (await existing(path))?.real ?? path));
  for (const [name, files] of Object.entries(FOLDER_VARIABLES)) {
    const folder = await existing(env(name));
    if (folder?.kind !== "folder") continue;
    const coversTooMuch = folder.real === "/" || visible.some((path) => isWithin(path, folder.real));
    if (!coversTooMuch) found.push(folder.real);
    else for (const file of files) found.push(join(folder.real, file));
  }
  return found;
}

/** Where `value` leads (relative to the agent's folder, as the clouds' libraries read it), or undefined when nothing is there. */
async function existing(value: string | undefined): Promise<{ real: string; kind: "file" | "folder" } | undefined> {
  if (!value?.trim()) return undefined;
  const path = resolve(currentDirectory(), value);
  const info = await statOrUndefined(path).catch(() => undefined);
  if (!info) return undefined;
  const real = await realPath(path).catch(() => undefined);
  if (!real) return undefined;
  return info.isFile ? { real, kind: "file" } : info.isDirectory ? { real, kind: "folder" } : undefined;
}
