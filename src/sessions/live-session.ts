/**
 * A session alive in this process, and the clients attached to it. Nothing
 * here knows the wire: a client is anything that can be told the session's
 * news and can watch its turns.
 * @module
 */
import type { ApprovalMode, Settings } from "../config/settings-schema.ts";
import type { EngineEvent } from "../engine/events.ts";
import type { AgentSession } from "../engine/session.ts";
import type { ImagePart, TextPart } from "../models/types.ts";
import type { Grant } from "../permissions/grants.ts";
import type { McpConnections } from "../tools/mcp/connections.ts";
import type { PromptTemplate } from "./prompt-templates.ts";
import type { SessionRecorder } from "./session-recorder.ts";

/** What a session tells its clients outside the engine's turn events. */
export type SessionNews =
  /** Text from the agent outside a turn: a notice, a command's answer. */
  | { type: "message"; text: string }
  /** Part of a prompt another client sent. */
  | { type: "prompt"; part: TextPart | ImagePart }
  /** The title changed; null when it was cleared. */
  | { type: "title"; title: string | null; updatedAt: string }
  /** The mode, model or thinking level changed (`modeChanged` when the mode did). */
  | { type: "settings"; modeChanged: boolean };

/**
 * What a client is to send: made once per view (see `SessionClient.viewKey`)
 * and sent as is to every client of that view. Opaque to this layer.
 */
export type ClientOutput = unknown;

/**
 * A client attached to a session: it sees every update of the session, in its
 * own form. Clients with the same `viewKey` see the same form, so each update
 * is prepared once for all of them (serialised once, not once per client).
 */
export interface SessionClient {
  /** The connection's id, unique in the process. */
  id: string;
  /** Clients with equal keys are shown identical output for the same news and events. */
  viewKey: string;
  /** What one piece of news looks like to clients of this view. */
  prepareNews(live: LiveSession, news: SessionNews): ClientOutput[];
  /** A view of one turn shared by the clients of this view (it keeps state such as output tails): what each event shows. */
  watchTurn(live: LiveSession): (event: EngineEvent) => ClientOutput[];
  /** Sends output prepared by a client of the same view; returns a promise only when the send is not done at once. Throws or rejects when the client is gone. */
  send(live: LiveSession, output: readonly ClientOutput[]): Promise<void> | void;
  /** Called once the client is attached to the session, so the connection can detach it when it closes. */
  attached(sessionId: string): void;
}

/** A session alive in this process, with its settings and attached clients. */
export interface LiveSession {
  agent: AgentSession;
  cwd: string;
  additionalDirectories: string[];
  /** User settings merged with the project's, as they were when the session opened. */
  settings: Settings;
  /** The approval mode (the session mode). */
  mode: ApprovalMode;
  /** "Always" answers the user gave in this session. */
  grants: Grant[];
  /** Writes the session's steps to its journal. */
  recorder: SessionRecorder;
  /** Prompt templates offered as slash commands. */
  templates: PromptTemplate[];
  /** Things to tell the user once the session is open (e.g. a model that is no longer available). */
  notices: string[];
  /** Whether the clients have been told the session is open; notices before that wait in `notices`. */
  announced: boolean;
  /** The MCP servers the client passed, when it passed any. */
  mcp?: McpConnections;
  title?: string;
  /** Clients attached to the session, by connection id. */
  subscribers: Map<string, SessionClient>;
  /** The connection whose prompt is running (it alone is asked for permissions). */
  turnOwner?: string;
  /** The prompt turn in flight, so close and shutdown can wait for it to settle. */
  turn?: Promise<unknown>;
}
