/**
 * What every client connection of this process shares: configuration, the model
 * registry, command-line choices and the live sessions.
 * @module
 */
import type { UserConfig } from "../config/load.ts";
import type { ApprovalMode } from "../config/settings-schema.ts";
import type { ModelRegistry } from "../models/registry.ts";
import type { SessionStore } from "../store/types.ts";
import type { SessionRegistry } from "./session-registry.ts";

/** The command-line choices that shape every session. */
export interface AgentOptions {
  /** `--model`: overrides `defaultModel` from settings. */
  model?: string;
  /** `--approval-mode`: overrides `approvalMode` from settings. */
  approvalMode?: ApprovalMode;
  /** `--no-session`: keep sessions in memory only. */
  noSession: boolean;
  /** `--session-dir`: where session files live. */
  sessionDir?: string;
}

/**
 * How a client that launched this agent can run its login in a terminal:
 * set only when the agent is a local command of its client (`agent stdio`).
 */
export interface TerminalLogin {
  /** The program and arguments that started this agent (clients of the older `_meta["terminal-auth"]` run it with `login` added). */
  invocation: { command: string; args: string[] };
  /** Variables the login needs to find the same home folder, when it is not the default one. */
  env?: Record<string, string>;
}

/** The process-wide services every connection and session uses. */
export interface AgentServices {
  /** Set when clients may run the login in a terminal (see `TerminalLogin`). */
  terminalLogin?: TerminalLogin;
  config: UserConfig;
  registry: ModelRegistry;
  options: AgentOptions;
  sessions: SessionRegistry;
  /** Where sessions are kept: a directory of journals, or memory with `--no-session`. */
  store: SessionStore;
  /** The directory of the journals (unused with `--no-session`). */
  sessionDir: string;
}
