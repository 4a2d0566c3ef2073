/**
 * What a tool is, what it returns, and the `Workspace` it works through.
 * Tools never talk to the protocol: they get a `Workspace` (the local disk,
 * or the editor through ACP) and return plain results.
 * @module
 */
import type * as v from "valibot";

/** How an editor should present a tool call (ACP `ToolKind` values). */
export type ToolKind = "read" | "edit" | "delete" | "move" | "search" | "execute" | "think" | "fetch" | "other";

export interface ToolLocation {
  /** Absolute path. */
  path: string;
  /** 1-based line, when known. */
  line?: number;
}

export type ToolOutputPart = { type: "text"; text: string } | { type: "image"; data: string; mimeType: string };

export interface ToolResult {
  content: ToolOutputPart[];
  isError?: boolean;
  /** Small structured facts about the run (counts, truncation, paths); shown to editors as raw output. */
  details?: Record<string, unknown>;
  /** Locations learnt while running (e.g. the line an edit changed). */
  locations?: ToolLocation[];
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
}

export interface ToolContext {
  workspace: Workspace;
  signal: AbortSignal;
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
  kind: ToolKind;
  describe(input: v.InferOutput<TSchema>, workspace: Workspace): ToolDescription;
  /** Resolves with a result; failures the model should see throw `ToolError` (or any error). */
  execute(input: v.InferOutput<TSchema>, context: ToolContext): Promise<ToolResult>;
}

/** A failure the model should read and recover from ("File not found: src/x.ts"). */
export class ToolError extends Error {
  override name = "ToolError";
}
