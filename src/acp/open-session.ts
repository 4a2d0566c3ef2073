/**
 * Building a session from `session/new` parameters: check the directories,
 * read the project's settings, pick the model, and assemble the engine
 * session with its workspace, tools and system prompt.
 * @module
 */
import { nanoid } from "nanoid";
import { ConfigError, loadSettingsFor } from "../config/settings.ts";
import type { Settings } from "../config/settings-schema.ts";
import { loadContextFiles } from "../engine/context-files.ts";
import { AgentSession } from "../engine/session.ts";
import { buildSystemPrompt } from "../engine/system-prompt.ts";
import type { ModelMessage, ThinkingLevel } from "../models/types.ts";
import { isAbsolute } from "../runtime/path.ts";
import { statOrUndefined } from "../runtime/fs.ts";
import { createLocalWorkspace } from "../tools/local-workspace.ts";
import { builtinTools } from "../tools/builtin.ts";
import { authRequired, internalError, invalidParams } from "./errors.ts";
import type { AgentServices } from "./services.ts";
import type { LiveSession } from "./session-registry.ts";

export interface OpenSessionRequest {
  cwd: string;
  additionalDirectories?: string[];
  /** Restored state, when loading a stored session. */
  id?: string;
  history?: ModelMessage[];
  model?: string;
  thinking?: ThinkingLevel;
}

const DEFAULT_MAX_TURN_REQUESTS = 50;

export function newSessionId(): string {
  return `sess_${nanoid(21)}`;
}

async function checkDirectory(path: string, field: string): Promise<void> {
  if (!isAbsolute(path)) throw invalidParams(`${field} must be an absolute path, got "${path}"`, { [field]: path });
  const info = await statOrUndefined(path).catch(() => undefined);
  if (!info) throw invalidParams(`${field} does not exist: ${path}`, { [field]: path });
  if (!info.isDirectory) throw invalidParams(`${field} is not a directory: ${path}`, { [field]: path });
}

export async function openSession(services: AgentServices, request: OpenSessionRequest): Promise<LiveSession> {
  await checkDirectory(request.cwd, "cwd");
  const extra = request.additionalDirectories ?? [];
  for (const dir of extra) await checkDirectory(dir, "additionalDirectories");

  let settings: Settings;
  try {
    settings = await loadSettingsFor(request.cwd, {
      ...services.config.settings,
      ...(services.options.approvalMode ? { approvalMode: services.options.approvalMode } : {}),
    });
  } catch (error) {
    if (error instanceof ConfigError) throw internalError(`Project settings cannot be used: ${error.message}`);
    throw error;
  }

  const preferred = request.model ?? services.options.model ?? settings.defaultModel;
  const choice = services.registry.pickDefault(preferred);
  if ("kind" in choice) {
    throw choice.kind === "auth" ? authRequired(choice.message) : internalError(`Cannot choose a model: ${choice.message}`);
  }
  const model = await services.registry.createClient(choice);

  const workspace = await createLocalWorkspace(request.cwd, extra);
  const tools = builtinTools;
  const contextFiles = await loadContextFiles(services.config.home, request.cwd);
  const systemPrompt = buildSystemPrompt({ tools, contextFiles, cwd: request.cwd, additionalDirectories: extra, date: new Date() });

  const agent = new AgentSession({
    id: request.id ?? newSessionId(),
    workspace,
    tools,
    model,
    thinking: request.thinking ?? settings.thinkingLevel ?? "medium",
    systemPrompt,
    maxTurnRequests: settings.maxTurnRequests ?? DEFAULT_MAX_TURN_REQUESTS,
    ...(request.history ? { history: request.history } : {}),
  });
  return { agent, cwd: request.cwd, additionalDirectories: extra, settings, mode: settings.approvalMode ?? "ask", grants: [] };
}
