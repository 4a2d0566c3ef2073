/**
 * How a command runs given the approval mode and the user's `sandbox`
 * setting: unconfined (the mode alone decides, as before the sandbox),
 * confined (without asking in `auto` and `read-only` modes; after the usual
 * question with the setting `on`), or refused (the setting is `on` and the
 * machine has no sandbox: never run unconfined). A call that asks to run
 * outside the sandbox is marked `escalated` in every mode but `yolo`.
 * @module
 */
import type { ApprovalMode, SandboxMode } from "../config/settings-schema.ts";

/** The session's sandbox as the policy sees it. */
export interface SandboxState {
  mode: SandboxMode;
  available: boolean;
  /** What to install, when not available. */
  missing?: string;
}

export type Confinement =
  | { kind: "none" }
  /** `approved`: runs without asking (the sandbox is what makes it safe). */
  | { kind: "sandbox"; readOnly: boolean; approved: boolean }
  /** The call asks to leave a sandbox that would apply: the user decides, every time. */
  | { kind: "escalated" }
  | { kind: "refuse"; reason: string };

/** The confinement of a command in `mode`; `outsideSandbox` when the call asks to run unconfined. */
export function commandConfinement(mode: ApprovalMode, sandbox: SandboxState | undefined, outsideSandbox: boolean): Confinement {
  if (mode === "yolo") return { kind: "none" };
  const wanted = sandbox !== undefined && sandbox.mode !== "off" && (sandbox.mode === "on" || mode === "auto" || mode === "read-only");
  if (wanted && !sandbox.available && sandbox.mode === "on") {
    return { kind: "refuse", reason: `Commands run only in a sandbox (the sandbox setting is on), and this machine has none: missing ${sandbox.missing ?? "a sandbox"}. Nothing was run.` };
  }
  // Asking to leave the sandbox always asks (but in yolo), even where no sandbox would apply.
  if (outsideSandbox) return { kind: "escalated" };
  // No sandbox wanted, or the `auto` setting without one: `auto` mode asks as `write` does, `read-only` refuses as before.
  if (!wanted || !sandbox.available) return { kind: "none" };
  return { kind: "sandbox", readOnly: mode === "read-only", approved: mode === "auto" || mode === "read-only" };
}
