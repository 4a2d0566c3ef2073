/**
 * What a sandboxed command may touch: the folders it may write (everything
 * else is read-only), the paths it may not read at all, and the program that
 * confines it. Commands in the sandbox reach no network beyond their own
 * loopback, unless the user allowed hosts: then only those, through the
 * filtering proxy.
 * @module
 */
import type { SandboxNetwork } from "./network/sandbox-network.ts";

/** The confinement of one command. */
export interface SandboxSpec {
  /** Absolute path of the confining program (bubblewrap). */
  program: string;
  /** Options this version of the program understands beyond the common ones (see the probe). */
  extraOptions: readonly string[];
  /** Absolute, symlink-free folders the command may write; the rest of the file system is read-only. */
  writable: readonly string[];
  /**
   * Absolute paths the command may read but never change, even inside a writable folder: the
   * agent's home and the user's setup folders the agent reads on its own.
   */
  readOnly?: readonly string[];
  /** Absolute paths the command may not read: folders appear empty, files empty. */
  hidden: readonly string[];
  /** Environment variables the command never gets beyond those every confined command loses (the providers' keys). */
  secretVariables?: readonly string[];
  /** With `sandbox.allowHosts`: the way to the session's filtering proxy; without, no network at all. */
  network?: SandboxNetwork;
}

/**
 * The user's secrets, relative to the home directory: keys, cloud and
 * registry credentials. The agent's own credential files and Claude Code's
 * are added by the session (they may lie elsewhere).
 */
export const HOME_SECRETS = [
  ".ssh",
  ".aws",
  ".gnupg",
  ".config/gcloud",
  ".docker",
  ".azure",
  ".kube",
  ".config/gh",
  ".netrc",
  ".git-credentials",
  ".pgpass",
  ".npmrc",
  ".pypirc",
  ".cargo/credentials",
  ".cargo/credentials.toml",
] as const;
