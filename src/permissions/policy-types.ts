/**
 * What the permission policy takes and gives: shared by the policy and the
 * fetch policy it hands `fetch` calls to, in a module of their own so
 * neither imports the other for its types.
 * @module
 */
import type { ApprovalMode, PermissionRule } from "../config/settings-schema.ts";
import type { ToolAccess } from "../tools/types.ts";
import type { Grant } from "./grants.ts";
import type { SandboxState } from "./command-confinement.ts";

/** Everything the policy needs to decide one tool call. */
export interface PolicyInput {
  toolName: string;
  access: ToolAccess;
  mode: ApprovalMode;
  rules: readonly PermissionRule[];
  grants: readonly Grant[];
  cwd: string;
  roots: readonly string[];
  /** The session's sandbox (absent: commands run unconfined, as the mode decides). */
  sandbox?: SandboxState;
}

/** A command that runs confined: writable session folders, or only the temp dir. */
export interface VerdictSandbox {
  readOnly: boolean;
}

/** Run, refuse (with the reason the model reads) or ask (with the "always" answers to offer). */
export type PolicyVerdict =
  | { decision: "allow"; outside: boolean; sandbox?: VerdictSandbox }
  | { decision: "deny"; reason: string }
  | { decision: "ask"; outside: boolean; why: string; offer: { allow?: Grant; reject: Grant }; sandbox?: VerdictSandbox };
