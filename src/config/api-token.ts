/**
 * The bearer token of `agent serve`: `--token-file`, else `ACP_EDGE_TOKEN`,
 * else `<home>/api-token`, created on first use (32 random bytes,
 * base64url, mode 0600, never overwritten) and reused afterwards. The token
 * is registered as a secret so it never reaches output, logs or errors.
 * @module
 */
import { createExclusive, errorCode, hardLink, isNotFound, makeDirectory, readTextFile, removeFile, stat } from "../runtime/files/fs.ts";
import { dirname } from "../runtime/files/path.ts";
import { env } from "../runtime/process/process.ts";
import { registerSecret } from "../runtime/secrets.ts";
import { ConfigError } from "./settings.ts";

export interface ApiToken {
  token: string;
  /** Where it came from, for the start-up banner (never the token itself). */
  source: string;
}

/** Token characters that survive a WebSocket subprotocol entry (RFC 7230 token chars). */
const TOKEN_PATTERN = /^[A-Za-z0-9._~+-]{16,4096}$/;

function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function checked(token: string, where: string): string {
  const trimmed = token.trim();
  if (!TOKEN_PATTERN.test(trimmed)) {
    throw new ConfigError(`${where}: the token must be 16-4096 characters of A-Z a-z 0-9 . _ ~ + - (it is sent as a WebSocket subprotocol)`);
  }
  registerSecret(trimmed);
  return trimmed;
}

/** Checks a token handed over in code (an embedder's) like one from the environment, and registers it as a secret. */
export function checkApiToken(token: string, where: string): string {
  return checked(token, where);
}

async function readTokenFile(path: string): Promise<string> {
  const info = await stat(path);
  if (!info.isFile) throw new ConfigError(`token file ${path} is not a regular file`);
  if ((info.mode & 0o077) !== 0) throw new ConfigError(`token file ${path} is readable by other users; run: chmod 600 ${path}`);
  return checked(await readTextFile(path), `token file ${path}`);
}

export async function resolveApiToken(options: { tokenFile?: string; defaultPath: string }): Promise<ApiToken> {
  if (options.tokenFile) {
    try {
      return { token: await readTokenFile(options.tokenFile), source: `token file ${options.tokenFile}` };
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      throw new ConfigError(`cannot read token file ${options.tokenFile}: ${errorCode(error) ?? (error as Error).message}`);
    }
  }
  const fromEnv = env("ACP_EDGE_TOKEN");
  if (fromEnv) return { token: checked(fromEnv, "ACP_EDGE_TOKEN"), source: "environment variable ACP_EDGE_TOKEN" };

  const path = options.defaultPath;
  try {
    return { token: await readTokenFile(path), source: `token file ${path}` };
  } catch (error) {
    if (!isNotFound(error)) throw error instanceof ConfigError ? error : new ConfigError(`cannot read ${path}: ${(error as Error).message}`);
  }
  await makeDirectory(dirname(path), 0o700);
  const token = randomToken();
  // Written and fsynced under a temporary name, then linked into place: readers never see a partial
  // token, and an existing file (another process was first) is never overwritten.
  const temporary = `${path}.${crypto.randomUUID()}.tmp`;
  try {
    await createExclusive(temporary, `${token}\n`, 0o600);
    await hardLink(temporary, path);
  } catch (error) {
    if (errorCode(error) === "EEXIST") return { token: await readTokenFile(path), source: `token file ${path}` };
    throw new ConfigError(`cannot create ${path}: ${(error as Error).message}`);
  } finally {
    await removeFile(temporary).catch(() => undefined);
  }
  return { token: checked(token, path), source: `token file ${path} (created)` };
}
