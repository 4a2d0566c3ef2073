/**
 * The sandbox of one session: the user's `sandbox` setting, whether this
 * machine can confine commands, and the confinement of a command — the
 * session's folders and the temp dir writable (only the temp dir in
 * `read-only` mode), the user's secrets and the agent's credential files
 * hidden, no network.
 * @module
 */
import type { SandboxMode, Settings } from "../config/settings-schema.ts";
import { expandTilde, homePaths } from "../config/home.ts";
import { join } from "../runtime/files/path.ts";
import { tempDirectory, userHomeDirectory } from "../runtime/process/process.ts";
import type { SandboxAvailability } from "../runtime/sandbox/sandbox-probe.ts";
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
  /** The confinement of one command; undefined where the machine has no sandbox (or before the probe). */
  spec(readOnly: boolean): SandboxSpec | undefined;
}

const SETTING_OFF: SandboxAvailability = { available: false, missing: "nothing: the sandbox setting is off" };

/** The sandbox of a session with these settings, agent home and roots. */
export function sessionSandbox(settings: Settings, agentHome: string, roots: readonly string[]): SessionSandbox {
  const setting = typeof settings.sandbox === "string" ? { mode: settings.sandbox } : (settings.sandbox ?? {});
  const mode = setting.mode ?? "auto";
  let known: SandboxAvailability | undefined = mode === "off" ? SETTING_OFF : undefined;
  const home = userHomeDirectory();
  const agentFiles = homePaths(agentHome);
  const hidden = [
    ...(home ? HOME_SECRETS.map((relative) => join(home, relative)) : []),
    agentFiles.auth,
    agentFiles.apiToken,
    ...(setting.denyRead ?? []).map(expandTilde),
  ];
  const extraWritable = (setting.allowWrite ?? []).map(expandTilde);
  return {
    mode,
    async availability() {
      // The probe's code loads only when a session needs to know.
      known ??= await (await import("../runtime/sandbox/sandbox-probe.ts")).sandboxAvailability();
      return known;
    },
    known: () => known,
    spec(readOnly) {
      const availability = known;
      if (!availability?.available) return undefined;
      const temp = tempDirectory();
      return { program: availability.program, extraOptions: availability.extraOptions, writable: readOnly ? [temp] : [...roots, temp, ...extraWritable], hidden };
    },
  };
}

/**
 * What to tell the user when a session opens: a sandbox that the mode or setting asks for but that is
 * missing (probed only then), settings not applied.
 */
export async function sandboxNotices(sandbox: SessionSandbox, settings: Settings, mode: string): Promise<string[]> {
  const notices: string[] = [];
  const wanted = sandbox.mode === "on" || (sandbox.mode === "auto" && (mode === "auto" || mode === "read-only"));
  const availability = wanted ? await sandbox.availability() : { available: true as const };
  if (!availability.available && sandbox.mode === "on") notices.push(`The sandbox setting is on but this machine has no sandbox: commands are refused until ${availability.missing} is available.`);
  else if (!availability.available && sandbox.mode === "auto" && mode === "auto") {
    notices.push(`No sandbox on this machine (missing ${availability.missing}): in auto mode commands ask before they run.`);
  }
  if (typeof settings.sandbox === "object" && (settings.sandbox.allowHosts?.length ?? 0) > 0) {
    notices.push("sandbox.allowHosts is not supported yet: sandboxed commands reach no network at all. Run a command that needs the network outside the sandbox (it asks first).");
  }
  return notices;
}
