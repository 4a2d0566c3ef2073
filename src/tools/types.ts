/**
 * The tools layer's types (the same idea as `types.ts` in models/ and store/: a layer's contract).
 * What a tool is, what it returns, and the `Workspace` it works through.
 * Tools never talk to the protocol: they get a `Workspace` (the local disk,
 * or the editor through ACP) and return plain results.
 * @module
 */
import type * as v from "valibot";
import type { SandboxSpec } from "../runtime/sandbox/sandbox-spec.ts";

/** How an editor should present a tool call (ACP `ToolKind` values). */
export type ToolKind = "read" | "edit" | "delete" | "move" | "search" | "execute" | "think" | "fetch" | "other";

export interface ToolLocation {
  /** Absolute path. */
  path: string;
  /** 1-based line, when known. */
  line?: number;
}

export type ToolOutputPart = { type: "text"; text: string } | { type: "image"; data: string; mimeType: string };

/** A whole-file change, for editors to show as a diff. */
export interface FileDiff {
  /** Absolute path. */
  path: string;
  /** Content before the change; null when the file is new. */
  oldText: string | null;
  newText: string;
}

export interface ToolResult {
  content: ToolOutputPart[];
  isError?: boolean;
  /** Small structured facts about the run (counts, truncation, paths); shown to editors as raw output. */
  details?: Record<string, unknown>;
  /** Locations learnt while running (e.g. the line an edit changed). */
  locations?: ToolLocation[];
  /** The change a write or edit made. */
  diff?: FileDiff;
}

/** What a call will do, worked out before it is approved (an edit's diff, the line it touches). */
export interface ToolPreview {
  diff?: FileDiff;
  locations?: ToolLocation[];
  /** The state of the file the change was worked out from (never shown; checked again before writing). */
  basis?: FileBasis;
}

/**
 * What a file was when a change to it was previewed: absent, its text (as
 * the workspace served it, so an editor's unsaved buffer counts), or only
 * its size and modification time when the text was too big to read.
 */
export type FileBasis =
  | { kind: "absent" }
  | { kind: "text"; text: string }
  | { kind: "stat"; size: number; mtimeMs: number };

/**
 * Whether a call may touch a path it reached on its own (an entry of a
 * directory walk), given the path as reached and its symlink-free location.
 * False: leave it out, neither read nor named.
 */
export type PathFilter = (path: string, realPath: string) => boolean;

/**
 * What a call touches, for approval modes and permission rules:
 * `read` (looks at files), `edit` (changes files), `execute` (runs a
 * command), `fetch` (reaches a host on the network), `none` (touches nothing outside the agent, e.g. the plan).
 */
export interface ToolAccess {
  /** `other`: an action outside files and commands (e.g. an MCP tool that may change things). */
  class: "none" | "read" | "edit" | "execute" | "fetch" | "other";
  /** Absolute (lexical) paths the call reads or changes. */
  paths?: string[];
  /** The command line, for `execute`. */
  command?: string;
  /** The host (`name` or `name:port`) a `fetch` reaches. */
  host?: string;
  /** An `execute` call asks to run outside the sandbox, for this reason (the model's words). */
  outsideSandbox?: { reason: string };
}

/** Progress a tool reports while it runs. */
export type ToolReport =
  /** New command output since the last report (never the whole buffer). */
  | { type: "output"; delta: string }
  /** The command runs in the editor's terminal with this id. */
  | { type: "terminal"; terminalId: string }
  /** The model's todo list changed; always the full list. */
  | { type: "plan"; entries: PlanEntry[] };

export interface PlanEntry {
  content: string;
  status: "pending" | "in_progress" | "completed";
  priority: "high" | "medium" | "low";
}

/** A command to run in the session's directory. */
export interface ExecRequest {
  command: string;
  cwd: string;
  /** Kill the command (and everything it started) after this long. */
  timeoutMs?: number;
  signal: AbortSignal;
  /** Output as it arrives (stdout and stderr merged), in bounded pieces. */
  onOutput?(delta: string): void;
  /** Called once when the command runs in an editor terminal. */
  onTerminal?(terminalId: string): void;
  /** Run confined like this (absent: unconfined). */
  sandbox?: SandboxSpec;
}

/** A command to start in the background. */
export interface BackgroundRequest {
  command: string;
  cwd: string;
  /** Run confined like this (absent: unconfined). */
  sandbox?: SandboxSpec;
}

export interface ExecResult {
  /** null when the command was killed by a signal, timed out or was cancelled. */
  exitCode: number | null;
  signal?: string | null;
  /** The tail of the output (at most 2000 lines / 50 KiB), with no truncation note. */
  output: string;
  truncated: boolean;
  /** Where the whole output was saved when it was truncated. */
  fullOutputPath?: string;
  totalLines: number;
  totalBytes: number;
  timedOut: boolean;
  cancelled: boolean;
}

/** How a background command ended: its exit code, or the signal that ended it. */
export interface BackgroundExit {
  code: number | null;
  signal: string | null;
}

/** What a background command printed since it was last read, and whether it still runs. */
export interface BackgroundRead {
  /** The unread output (redacted), at most the bounded tail of it. */
  output: string;
  /** Bytes of unread output dropped (older than what is kept). */
  droppedBytes: number;
  /** Set once the command has ended. */
  exit?: BackgroundExit;
}

/** A command started in the background: it runs on after the call that started it, until stopped or its owner ends. */
export interface BackgroundProcess {
  /** The editor terminal it runs in, when it runs in one. */
  readonly terminalId?: string;
  /**
   * Settles when the command has exited, as the process's exit event arrives; absent where its end
   * is only learnt by asking (an editor's terminal, which a read asks).
   */
  readonly ended?: Promise<BackgroundExit>;
  /** Takes the output not read yet; sets `exit` once it ended. A cancel through `signal` ends a wait on the editor. */
  read(signal?: AbortSignal): Promise<BackgroundRead>;
  /** Resolves when there is unread output or the command ended, after `ms` at the latest, or when `signal` aborts. */
  changed(ms: number, signal: AbortSignal): Promise<void>;
  /**
   * Ends the command and everything it started (politely, then by force) and returns what was not read yet and how it ended.
   * A cancel through `signal` stops waiting for an editor's answers (the requests are sent all the same).
   */
  stop(signal?: AbortSignal): Promise<BackgroundRead>;
}

/** Title and locations shown to the editor before the tool runs. */
export interface ToolDescription {
  title: string;
  locations: ToolLocation[];
}

/**
 * The files a session may touch, and how to reach them. The local
 * implementation reads the disk; a delegated one asks the editor.
 * Paths given to these methods are absolute and already confined to `roots`.
 */
export interface Workspace {
  /** The session's working directory (absolute). */
  readonly cwd: string;
  /** `cwd` followed by the additional directories, absolute and symlink-free. */
  readonly roots: readonly string[];
  /** UTF-8 text of a file (an editor may answer with an unsaved buffer). */
  readTextFile(path: string, signal?: AbortSignal): Promise<string>;
  /** Raw bytes of a file, at most `maxBytes` from its start when given. */
  readFileBytes(path: string, maxBytes?: number): Promise<Uint8Array>;
  /**
   * Replaces (or creates) a file's whole content; never leaves a half-written file. Where it can
   * tell that the file changed while the content was being written, it leaves it and fails with
   * the error code `ECHANGED`.
   */
  writeTextFile(path: string, content: string, signal?: AbortSignal): Promise<void>;
  /** Runs a shell command; resolves when it has ended (also on timeout or cancel). */
  exec(request: ExecRequest): Promise<ExecResult>;
  /** Starts a shell command that runs on after this call; absent where commands cannot run in the background. */
  startBackground?(request: BackgroundRequest): Promise<BackgroundProcess>;
}

export interface ToolContext {
  workspace: Workspace;
  signal: AbortSignal;
  /** The call being run (a tool that asks the user ties its question to it). */
  toolCallId?: string;
  /** The user or the approval mode allowed this call to reach outside the session's directories. */
  outsideRootsApproved?: boolean;
  /** The permission rules' verdict on each path a walk reaches (absent: every path may be touched). */
  pathFilter?: PathFilter;
  /** The preview the call was approved on; a change is not written once the file no longer matches its basis. */
  preview?: ToolPreview;
  /** Live progress for the editor. */
  report?(event: ToolReport): void;
  /** The session's background commands (absent where none may be started). */
  backgroundCommands?: BackgroundCommandsView;
  /** The confinement the call's commands run in (absent: unconfined). */
  sandbox?: SandboxSpec;
  /** Runs subagents for this call (offered to the `task` tool by the engine's turn). */
  subagents?: SubagentHost;
}

/** The session's background commands as tools reach them (implemented by `BackgroundCommands`). */
export interface BackgroundCommandsView {
  /** Starts `command` and waits a moment for its first output. */
  start(workspace: Workspace, command: string, signal?: AbortSignal, sandbox?: SandboxSpec): Promise<{ id: string; command: BackgroundProcess; first: BackgroundRead }>;
  /** Output since the last read, waiting up to `waitMs` for some (or the end); throws `ToolError` naming the ids held for an unknown id. */
  read(id: string, waitMs: number, signal: AbortSignal): Promise<BackgroundRead>;
  /** Ends the command's whole tree and forgets it; a cancel through `signal` stops waiting for an editor's answers. */
  stop(id: string, signal?: AbortSignal): Promise<BackgroundRead>;
  /** The ids of the commands held now, oldest first. */
  ids(): string[];
  /**
   * Runs `work` once the command has ended (its exit event; for an editor's terminal, a read that saw the end), was
   * stopped, or the session closed; closing the commands waits for it, so what it records still reaches the session.
   * False for an id not held (nothing runs).
   */
  afterEnd(id: string, work: () => Promise<void>): boolean;
}

/** One subagent to run: its own system prompt and task, and which of the turn's tools it may use. */
export interface SubagentRequest {
  system: string;
  prompt: string;
  /** Whether the subagent is offered `tool` (it never gets `task`, `plan` or `ask`, whatever this says). */
  offers(tool: ToolDefinition): boolean;
}

/** How a subagent ended: its final answer (the text of its last reply) and why it stopped. */
export interface SubagentAnswer {
  text: string;
  stopReason: string;
}

/** Runs a subagent in a fresh conversation of the same turn: same model, workspace, permission gate and cancel. */
export interface SubagentHost {
  run(request: SubagentRequest): Promise<SubagentAnswer>;
}

/** A tool: a valibot schema for its arguments, a description for the editor, and what it does. */
export interface ToolDefinition<TSchema extends v.GenericSchema = v.GenericSchema> {
  name: string;
  /** Shown to the model. */
  description: string;
  /** One-line summary for the system prompt's tool list. */
  promptSnippet: string;
  /** Extra guideline lines for the system prompt. */
  promptGuidelines?: string[];
  schema: TSchema;
  /** The JSON Schema shown to the model, when it is not derived from `schema` (e.g. an MCP server's own). */
  jsonSchema?: Record<string, unknown>;
  kind: ToolKind;
  /** Only looks (files, searches, a read-only MCP tool): offered to subagents by default. */
  readOnly?: boolean;
  /** Several calls of it in one step run at the same time (bounded), instead of one after another. */
  concurrent?: boolean;
  /** The call as the editor shows it; like `access` and `preview`, it runs before approval and reaches nothing outside. */
  describe(input: v.InferOutput<TSchema>, workspace: Workspace): ToolDescription;
  /** What the call touches; tools without it touch nothing that needs approval. */
  access?(input: v.InferOutput<TSchema>, workspace: Workspace): ToolAccess;
  /**
   * Works out the change before approval (so the editor can show the diff); throws ToolError when it cannot apply.
   * It runs before the call is allowed: it reads local state only and never reaches the network (no lookup, no connection).
   */
  preview?(input: v.InferOutput<TSchema>, context: ToolContext): Promise<ToolPreview>;
  /** Resolves with a result; failures the model should see throw `ToolError` (or any error). */
  execute(input: v.InferOutput<TSchema>, context: ToolContext): Promise<ToolResult>;
}

/** A failure the model should read and recover from ("File not found: src/x.ts"). */
export class ToolError extends Error {
  override name = "ToolError";
}
