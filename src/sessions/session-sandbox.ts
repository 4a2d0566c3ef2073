/**
 * The sandbox of one session: the user's `sandbox` setting, whether this
 * machine can confine commands, and the confinement of a command — the
 * session's folders and the temp dir writable (only the temp dir in
 * `read-only` mode), the user's secrets and the agent's credential files
 * hidden, no network — or, with `sandbox.allowHosts`, only those hosts,
 * through the session's filtering proxy, started with the first confined
 * command and closed with the session.
 * @module
 */
import type { SandboxMode, Settings } from "../config/settings-schema.ts";
import { expandTilde, homePaths } from "../config/home.ts";
import { CLOUD_CREDENTIAL_PATH_VARIABLES, cloudCredentialPaths } from "../config/cloud-credential-files.ts";
import { CLOUD_SECRET_VARIABLES, configuredProviders } from "../config/providers.ts";
import { userAgentFolders } from "../config/user-folders.ts";
import { makeDirectory } from "../runtime/files/fs.ts";
import { join } from "../runtime/files/path.ts";
import { tempDirectory, userHomeDirectory } from "../runtime/process/process.ts";
import type { SandboxAvailability } from "../runtime/sandbox/sandbox-probe.ts";
import type { SessionNetwork } from "../runtime/sandbox/network/session-network.ts";
import { HOME_SECRETS, type SandboxSpec } from "../runtime/sandbox/sandbox-spec.ts";

/** What a session knows about confining its commands. */
export interface SessionSandbox {
  /** The user's `sandbox` setting (a project's is ignored). */
  readonly mode: SandboxMode;
  /**
   * Whether this machine can confine commands: probed on the first call (once per process), so a
   * session that never needs the sandbox never pays for finding out.
   */
  availability(): Promise<SandboxAvailability>;
  /** The availability once probed; undefined before. */
  known(): SandboxAvailability | undefined;
  /** Hosts sandboxed commands may reach through the filtering proxy (the user's `sandbox.allowHosts`). */
  readonly allowHosts: readonly string[];
  /**
   * The confinement of one command; undefined where the machine has no sandbox (or before the probe).
   * With allowed hosts, the first call starts the session's network (its proxy).
   */
  spec(readOnly: boolean): Promise<SandboxSpec | undefined>;
  /** Ends the session's network, if one was started: its commands' connections and carriers. */
  close(): Promise<void>;
  /** The session's folders that stay read-only in the sandbox although they are the session's (`/`, the home directory or above it). */
  readonly unwritableRoots: readonly string[];
}

const SETTING_OFF: SandboxAvailability = { available: false, missing: "nothing: the sandbox setting is off" };

/** The sandbox of a session with these settings, agent home, roots and session store (when it is not the home's). */
export function sessionSandbox(settings: Settings, agentHome: string, roots: readonly string[], sessionDir?: string): SessionSandbox {
  const setting = typeof settings.sandbox === "string" ? { mode: settings.sandbox } : (settings.sandbox ?? {});
  const mode = setting.mode ?? "auto";
  let known: SandboxAvailability | undefined = mode === "off" ? SETTING_OFF : undefined;
  const home = userHomeDirectory();
  const agentFiles = homePaths(agentHome);
  const userFolders = userAgentFolders();
  // What the agent reads on its own at the next start or session: a command must not rewrite it.
  const readOnly = [agentHome, ...(userFolders.claude ? [userFolders.claude] : []), ...(userFolders.agents ? [userFolders.agents] : [])];
  const hidden = [
    ...(home ? HOME_SECRETS.map((relative) => join(home, relative)) : []),
    ...(userFolders.claude ? [join(userFolders.claude, ".credentials.json")] : []),
    agentFiles.auth,
    agentFiles.apiToken,
    // Other projects' transcripts and the providers' headers are none of a command's business.
    agentFiles.settings,
    agentFiles.sessions,
    ...(sessionDir ? [sessionDir] : []),
    ...(setting.denyRead ?? []).map(expandTilde),
  ];
  const extraWritable = (setting.allowWrite ?? []).map(expandTilde);
  const unwritableRoots = roots.filter((root) => !writableRoot(root, home));
  const writable = roots.filter((root) => writableRoot(root, home));
  const allowHosts = setting.allowHosts ?? [];
  let network: Promise<SessionNetwork> | undefined;
  let closed = false;
  // The credential files the clouds' variables name, found with the first confined command.
  let cloudFiles: Promise<string[]> | undefined;
  return {
    mode,
    unwritableRoots,
    allowHosts,
    async availability() {
      // The probe's code loads only when a session needs to know.
      known ??= await (await import("../runtime/sandbox/sandbox-probe.ts")).sandboxAvailability(setting.program === undefined ? undefined : expandTilde(setting.program));
      // Only an existing home can be mounted read-only: one a command could create would be its to fill with settings.
      if (known.available) await makeDirectory(agentHome, 0o700).catch(() => undefined);
      return known;
    },
    known: () => known,
    async spec(readOnlyMode) {
      const availability = known;
      if (!availability?.available) return undefined;
      const temp = tempDirectory();
      cloudFiles ??= cloudCredentialPaths([...(home ? [home] : []), ...roots, temp, ...extraWritable]);
      const spec: SandboxSpec = {
        program: availability.program,
        extraOptions: availability.extraOptions,
        writable: readOnlyMode ? [temp] : [...writable, temp, ...extraWritable],
        readOnly,
        hidden: [...hidden, ...(await cloudFiles)],
        secretVariables: secretVariables(settings),
      };
      if (allowHosts.length === 0) return spec;
      if (closed) throw new Error("the session is closed");
      // The proxy's code loads with the first command that may use it.
      network ??= import("../runtime/sandbox/network/session-network.ts").then(({ startSessionNetwork }) => startSessionNetwork(allowHosts));
      const { network: way } = await network;
      // Other commands' carriers are none of this one's business.
      return { ...spec, hidden: [...spec.hidden, way.carriers], network: way };
    },
    async close() {
      closed = true;
      (await network?.catch(() => undefined))?.close();
    },
  };
}

/**
 * Whether a session's folder may be writable in the sandbox: not `/` (a writable root is no
 * sandbox) and not the home directory or a folder above it (its shell startup files, the agent's
 * home and every tool's settings would be a command's to rewrite).
 */
function writableRoot(root: string, home: string | undefined): boolean {
  if (root === "/") return false;
  return home === undefined || !(home === root || home.startsWith(`${root}/`));
}

/**
 * The environment variables a confined command does not get beyond the name patterns: those that
 * hold the providers' keys (built in and custom, whatever their names), the search service's key,
 * the clouds' secrets (`AWS_BEARER_TOKEN_BEDROCK` fits no name pattern) and the variables that point
 * at the clouds' credential files.
 */
function secretVariables(settings: Settings): string[] {
  const search = typeof settings.webSearch === "object" && settings.webSearch.apiKeyEnv ? [settings.webSearch.apiKeyEnv] : [];
  return [...providerKeyVariables(settings), ...search, ...CLOUD_SECRET_VARIABLES, ...CLOUD_CREDENTIAL_PATH_VARIABLES];
}

/** The variables of the providers' keys, built in and custom. */
function providerKeyVariables(settings: Settings): string[] {
  try {
    return configuredProviders(settings).flatMap((provider) => (provider.apiKeyEnv ? [provider.apiKeyEnv] : []));
  } catch {
    // Settings that name a provider twice never open a session; the other names and the patterns still apply.
    return [];
  }
}

/**
 * What to tell the user when a session opens: a sandbox that the mode or setting asks for but that is
 * missing (probed only then), session folders that stay read-only.
 */
export async function sandboxNotices(sandbox: SessionSandbox, mode: string): Promise<string[]> {
  const notices: string[] = [];
  const wanted = sandbox.mode === "on" || (sandbox.mode === "auto" && (mode === "auto" || mode === "read-only"));
  const availability = wanted ? await sandbox.availability() : { available: true as const };
  if (!availability.available && sandbox.mode === "on") notices.push(`The sandbox setting is on but this machine has no sandbox: commands are refused until ${availability.missing} is available.`);
  else if (!availability.available && sandbox.mode === "auto" && mode === "auto") {
    notices.push(`No sandbox on this machine (missing ${availability.missing}): in auto mode commands ask before they run.`);
  }
  if (wanted && sandbox.unwritableRoots.length > 0) {
    notices.push(`In the sandbox ${sandbox.unwritableRoots.join(", ")} stays read-only: a session folder that is / or holds your home directory is never writable to commands (run a command that must write there outside the sandbox: it asks first).`);
  }
  return notices;
}
