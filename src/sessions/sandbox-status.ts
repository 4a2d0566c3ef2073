/**
 * Whether a session's commands run confined now (its mode and the user's
 * `sandbox` setting decide), as `session/status`, `/session` and the mode
 * option's description tell it.
 * @module
 */
import type { ApprovalMode } from "../config/settings-schema.ts";
import { commandConfinement } from "../permissions/command-confinement.ts";
import type { SessionSandbox } from "./session-sandbox.ts";

/** How the session's commands run in its current mode. */
export interface SandboxStatus {
  /** The user's `sandbox` setting. */
  setting: "auto" | "on" | "off";
  /** Whether this machine can confine commands (absent: not found out yet, nothing needed it). */
  available?: boolean;
  /** What is missing for a sandbox, when none is available. */
  missing?: string;
  commands: "sandboxed" | "sandboxed read-only" | "not sandboxed" | "refused";
  /** The hosts sandboxed commands may reach through the proxy (the user's `sandbox.allowHosts`), when any. */
  allowHosts?: readonly string[];
}

/**
 * The status as far as it is known: before the machine was probed (nothing needed the sandbox yet),
 * a mode that confines commands is shown as if a sandbox were there, without `available`.
 */
export function sandboxStatus(sandbox: SessionSandbox, mode: ApprovalMode): SandboxStatus {
  const availability = sandbox.known();
  const confinement = commandConfinement(mode, { mode: sandbox.mode, available: availability?.available ?? true }, false);
  const commands =
    confinement.kind === "sandbox" ? (confinement.readOnly ? "sandboxed read-only" : "sandboxed") : confinement.kind === "refuse" ? "refused" : "not sandboxed";
  const hosts = sandbox.allowHosts.length > 0 ? { allowHosts: sandbox.allowHosts } : {};
  if (!availability) return { setting: sandbox.mode, commands, ...hosts };
  return { setting: sandbox.mode, available: availability.available, ...(availability.available ? {} : { missing: availability.missing }), commands, ...hosts };
}

/** The status with the machine probed first (for explicit questions: `session/status`, `/session`). */
export async function probedSandboxStatus(sandbox: SessionSandbox, mode: ApprovalMode): Promise<SandboxStatus> {
  await sandbox.availability();
  return sandboxStatus(sandbox, mode);
}

/** One line for people: "Commands: run in the sandbox (bubblewrap)…". */
export function describeSandboxStatus(status: SandboxStatus): string {
  const why = status.available === false ? ` (no sandbox here: missing ${status.missing})` : "";
  const network = status.allowHosts ? `network only to ${status.allowHosts.join(", ")} through the proxy` : "no network";
  switch (status.commands) {
    case "sandboxed":
      return `Commands: run in the sandbox (writes only in the session's folders and the temp dir, secrets hidden, ${network})`;
    case "sandboxed read-only":
      return `Commands: run in a read-only sandbox (writes only in the temp dir, secrets hidden, ${network})`;
    case "refused":
      return `Commands: refused — the sandbox setting is on${why}`;
    case "not sandboxed":
      return `Commands: not sandboxed (sandbox setting ${status.setting})${why}`;
  }
}
