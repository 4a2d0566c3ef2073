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
  /** Whether this machine can confine commands. */
  available: boolean;
  /** What is missing for a sandbox, when none is available. */
  missing?: string;
  commands: "sandboxed" | "sandboxed read-only" | "not sandboxed" | "refused";
}

export function sandboxStatus(sandbox: SessionSandbox, mode: ApprovalMode): SandboxStatus {
  const { availability } = sandbox;
  const confinement = commandConfinement(mode, { mode: sandbox.mode, available: availability.available }, false);
  const commands =
    confinement.kind === "sandbox" ? (confinement.readOnly ? "sandboxed read-only" : "sandboxed") : confinement.kind === "refuse" ? "refused" : "not sandboxed";
  return { setting: sandbox.mode, available: availability.available, ...(availability.available ? {} : { missing: availability.missing }), commands };
}

/** One line for people: "Commands: run in the sandbox (bubblewrap)…". */
export function describeSandboxStatus(status: SandboxStatus): string {
  const why = status.available ? "" : ` (no sandbox here: missing ${status.missing})`;
  switch (status.commands) {
    case "sandboxed":
      return "Commands: run in the sandbox (writes only in the session's folders and the temp dir, secrets hidden, no network)";
    case "sandboxed read-only":
      return "Commands: run in a read-only sandbox (writes only in the temp dir, secrets hidden, no network)";
    case "refused":
      return `Commands: refused — the sandbox setting is on${why}`;
    case "not sandboxed":
      return `Commands: not sandboxed (sandbox setting ${status.setting})${why}`;
  }
}
