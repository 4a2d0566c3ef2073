/**
 * A session's hooks as `session/status` and `/session` show them: the hooks
 * in force and whether the project's run.
 * @module
 */
import type { LiveSession } from "../live-session.ts";

/** A hook in force, as `session/status` lists it. */
export interface HookStatus {
  event: string;
  matcher: string;
  command: string;
  /** `user`: the user's own settings; `project`: the project's, trusted by the user. */
  origin: "user" | "project";
  file: string;
}

/** An open session's hooks: those in force, and whether the project's run (`trusted`), were `refused`, wait for a question (`unasked`) or are off in `read-only`. */
export interface HooksStatus {
  inForce: HookStatus[];
  project?: { hooks: number; state: "trusted" | "refused" | "unasked" | "read-only" };
}

/** The hooks of an open session, when it has any. */
export function hooksStatus(live: LiveSession): HooksStatus | undefined {
  const hooks = live.hooks;
  if (!hooks) return undefined;
  const inForce = hooks.inForce(live.mode).map((h) => ({ event: h.event, matcher: h.matcher, command: h.command, origin: h.origin, file: h.file }));
  const project = hooks.project;
  if (project.commands.length === 0) return { inForce };
  const state = live.mode === "read-only" ? "read-only" : project.trust === "unknown" ? "unasked" : project.trust;
  return { inForce, project: { hooks: project.commands.length, state } };
}

/** The hooks in force, one line each, and whether the project's run. */
export function hookLines(live: LiveSession): string[] {
  const status = hooksStatus(live);
  if (!status) return ["Hooks: none"];
  const lines = [`Hooks in force: ${status.inForce.length}`, ...status.inForce.map((h) => `  ${h.event}${h.matcher === "*" ? "" : ` [${h.matcher}]`} (${h.origin}): ${h.command}`)];
  const words = { trusted: "run (trusted)", refused: "not run (refused in this session)", unasked: "not run yet (asked at the next prompt)", "read-only": "not run (read-only mode)" };
  if (status.project) lines.push(`Project hooks (${status.project.hooks}): ${words[status.project.state]}`);
  return lines;
}

