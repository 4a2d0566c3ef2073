/**
 * Building a live session: check the directories, read the project's
 * settings, pick the model, and assemble the engine session with its
 * workspace, tools, system prompt and journal. Used for new sessions and for
 * stored ones brought back (load, resume, fork).
 * @module
 */
import { providerSearchOf, searchServiceNamed } from "../session-web-search.ts";
import { sandboxNotices, sessionSandbox } from "../session-sandbox.ts";
import { nanoid } from "nanoid";
import { ConfigError, loadSettingsFor } from "../../config/settings.ts";
import type { Settings } from "../../config/settings-schema.ts";
import { compactionBudget } from "../../engine/compaction.ts";
import { userAgentFolders } from "../../config/user-folders.ts";
import { contextPlaces } from "../../engine/context-files.ts";
import { AgentSession } from "../../engine/session.ts";
import { lazyStep } from "../../engine/call-steps.ts";
import type { ModelRegistry } from "../../models/registry.ts";
import type { ModelClient } from "../../models/types.ts";
import { isAbsolute, join } from "../../runtime/files/path.ts";
import { statOrUndefined } from "../../runtime/files/fs.ts";
import type { SessionJournal } from "../../store/types.ts";
import { builtinTools } from "../../tools/builtin.ts";
import { createLocalWorkspace } from "../../tools/local-workspace.ts";
import { contextNotice, readContext, trackContext } from "../session-context.ts";
import { readSetup, trackSetup } from "../setup/session-setup.ts";
import { sessionSystemPrompt } from "../session-system-prompt.ts";
import { offerSearchService, sessionTools } from "../session-tools.ts";
import { setupPlaces, userInstructionFolders } from "../setup/setup-places.ts";
import type { AgentServices } from "../services.ts";
import { CHECKPOINT_FOLDER, commandCheckpoints } from "../checkpoints/command-checkpoints.ts";
import { SessionRecorder } from "../journal/session-recorder.ts";
import type { RestoredState } from "../journal/session-restore.ts";
import { LiveSession } from "../live-session.ts";
import { sessionEmitter } from "../session-emitter.ts";
import { noticeToSession } from "../session-broadcast.ts";
import type { EngineEvent } from "../../engine/events.ts";
import { SessionError } from "../session-error.ts";
import { findHookFiles } from "../hooks/hook-files.ts";
import type { SessionHooks } from "../hooks/session-hooks.ts";
import { cwdSlug } from "../../store/cwd-slug.ts";

/** What a live session is built from. */
export interface OpenSessionRequest {
  cwd: string;
  additionalDirectories?: string[];
  /** Id of a stored session being brought back; a new id is minted otherwise. */
  id?: string;
  /** State read back from the journal. */
  restored?: RestoredState;
  /** Creates (new session) or reopened (stored session) journal. */
  journal: (id: string) => Promise<SessionJournal>;
}

const DEFAULT_MAX_TURN_REQUESTS = 50;

/** A fresh session id (`sess_` and 21 random characters). */
export function newSessionId(): string {
  return `sess_${nanoid(21)}`;
}

/** Refuses a path that is not an absolute, existing directory, naming the field. */
export async function checkDirectory(path: string, field: string): Promise<void> {
  if (!isAbsolute(path)) throw new SessionError("invalid_params", `${field} must be an absolute path, got "${path}"`, { [field]: path });
  const info = await statOrUndefined(path).catch(() => undefined);
  if (!info) throw new SessionError("invalid_params", `${field} does not exist: ${path}`, { [field]: path });
  if (!info.isDirectory) throw new SessionError("invalid_params", `${field} is not a directory: ${path}`, { [field]: path });
}

async function projectSettings(services: AgentServices, cwd: string, roots: readonly string[]): Promise<Settings> {
  try {
    const user = { ...services.config.settings, ...(services.options.approvalMode ? { approvalMode: services.options.approvalMode } : {}) };
    return await loadSettingsFor(cwd, user, roots);
  } catch (error) {
    if (error instanceof ConfigError) throw new SessionError("internal", `Project settings cannot be used: ${error.message}`);
    throw error;
  }
}

/** Takes in a login or logout made since the last session opened (another process changed the files). */
async function refreshCredentials(registry: ModelRegistry): Promise<void> {
  try {
    await registry.refresh();
  } catch (error) {
    if (error instanceof ConfigError) throw new SessionError("internal", `Credentials cannot be read: ${error.message}`);
    throw error;
  }
}

/** The stored model when it is still usable, else the default; notes what changed. */
async function chooseModel(registry: ModelRegistry, preferred: string | undefined, stored: string | undefined, notices: string[]): Promise<ModelClient> {
  await refreshCredentials(registry);
  if (stored) {
    const found = registry.find(stored);
    if (!("kind" in found) && found.credential.ok) return await registry.createClient(found);
    const why = "kind" in found ? found.message : found.credential.ok ? "unavailable" : found.credential.hint;
    notices.push(`The session's model ${stored} is not available here (${why}).`);
  }
  const choice = registry.pickDefault(preferred);
  if ("kind" in choice) throw choice.kind === "auth" ? new SessionError("auth_required", choice.message) : new SessionError("internal", `Cannot choose a model: ${choice.message}`);
  if (stored) notices.push(`Continuing with ${choice.spec}.`);
  return await registry.createClient(choice);
}

/** Builds a live session (not yet registered nor attached to any client). */
export async function openSession(services: AgentServices, request: OpenSessionRequest): Promise<LiveSession> {
  await checkDirectory(request.cwd, "cwd");
  const extra = request.additionalDirectories ?? [];
  for (const dir of extra) await checkDirectory(dir, "additionalDirectories");
  const id = request.id ?? newSessionId();
  // Saved command output lives with the session and is deleted with it.
  const workspace = await createLocalWorkspace(request.cwd, extra, { outputDirectory: () => services.store.outputDirectory(id) });
  const settings = await projectSettings(services, request.cwd, workspace.roots);
  const restored = request.restored;
  const notices: string[] = [];
  const model = await chooseModel(services.registry, services.options.model ?? settings.defaultModel, restored?.model, notices);

  const home = services.config.home;
  const userFolders = userAgentFolders();
  const [places, setupFolders] = await Promise.all([
    contextPlaces(userInstructionFolders(home, userFolders), workspace.roots),
    setupPlaces(home, request.cwd, workspace.roots, userFolders),
  ]);
  const [context, setup, hookFiles] = await Promise.all([
    readContext(places),
    readSetup(setupFolders),
    findHookFiles({ home, ...(userFolders.claude ? { claude: userFolders.claude } : {}), cwd: request.cwd, roots: workspace.roots }),
  ]);
  notices.push(...context.skipped.map(contextNotice), ...setup.notices, ...hookFiles.notices);
  // The code that runs hooks loads only for a session that has some.
  let hooks: SessionHooks | undefined;
  if (hookFiles.files.length > 0) {
    const { SessionHooks } = await import("../hooks/session-hooks.ts");
    const transcriptPath = services.options.noSession ? undefined : join(services.sessionDir, cwdSlug(request.cwd), `${id}.jsonl`);
    hooks = new SessionHooks(hookFiles.files, { sessionId: id, cwd: request.cwd, home, resumed: restored !== undefined, ...(transcriptPath ? { transcriptPath } : {}) });
    notices.push(...hooks.notices);
  }
  const hookParts = hooks ? await import("../hooks/hook-step.ts") : undefined;
  const date = new Date();
  // Set once the session exists: a background command's changes reach its journal and clients when the command ends.
  let opened: LiveSession | undefined;
  const late = async (event: EngineEvent) => {
    if (!opened) return;
    if (event.type === "notice") noticeToSession(opened, event.text);
    else await opened.recorder.record(event, agent);
  };
  const systemPrompt = sessionSystemPrompt({ contextFiles: context.files, skills: setup.skills, cwd: request.cwd, additionalDirectories: extra, date });
  const webSearch = providerSearchOf(settings);
  const agent = new AgentSession({
    id,
    workspace,
    // The skill tool is the session's own: offered once the session exists (below).
    tools: builtinTools,
    model,
    thinking: restored?.thinking ?? settings.thinkingLevel ?? "medium",
    systemPrompt,
    maxTurnRequests: settings.maxTurnRequests ?? DEFAULT_MAX_TURN_REQUESTS,
    compaction: compactionBudget(model.info.contextWindow, settings.compaction ?? {}),
    ...(webSearch ? { webSearch } : {}),
    ...(restored ? { history: restored.history } : {}),
    // Steps act before the call in this order and after it in the reverse one. The checkpoint is outermost, so
    // its "after" snapshot of a command's files comes last, once a PostToolUse hook (a formatter) rewrote them;
    // the language servers come next, so their diagnostics see the hook's text. A PreToolUse hook still judges the
    // call before anything acts: that is the separate gate pass (gateCall), not this order.
    steps: [
      // Files a command changes are snapshotted around it, so a rewind can put them back.
      commandCheckpoints(async () => join(await services.store.outputDirectory(id), CHECKPOINT_FOLDER), late),
      // A changed file's language-server errors are added to the call's result (code loaded with the first change).
      lazyStep(
        (call) => call.tool.kind === "edit" && settings.lsp !== false && opened !== undefined,
        async () => (await import("../session-language-servers.ts")).languageServersOf(opened!).step,
      ),
      ...(hooks && hookParts ? [hookParts.hookCallStep(hooks)] : []),
    ],
    ...(hooks && hookParts ? { hooks: hookParts.hookTurnHooks(hooks) } : {}),
  });
  if (restored?.usage) {
    Object.assign(agent.totals, {
      input: restored.usage.input,
      output: restored.usage.output,
      cacheRead: restored.usage.cacheRead,
      cacheWrite: restored.usage.cacheWrite,
      cost: restored.usage.cost,
    });
    agent.contextUsed = restored.usage.used;
  }
  // The mode the user chose in the session survives a reload.
  const mode = restored?.mode ?? settings.approvalMode ?? "ask";
  const sandbox = sessionSandbox(settings, home, workspace.roots, services.sessionDir);
  notices.push(...(await sandboxNotices(sandbox, mode)));
  const journal = await request.journal(id);
  const live = new LiveSession({
    agent,
    cwd: request.cwd,
    additionalDirectories: extra,
    settings,
    mode,
    sandbox,
    grants: restored?.grants ?? [],
    recorder: new SessionRecorder(journal, restored?.messageCount ?? 0, restored?.retracted ?? [], restored?.messageIds ?? []),
    templates: setup.templates,
    skills: setup.skills,
    agents: setup.agents,
    notices,
    emitterFor: sessionEmitter,
    ...(restored?.title ? { title: restored.title } : {}),
    ...(hooks ? { hooks } : {}),
  });
  opened = live;
  if (hooks) {
    hooks.tell = (text) => noticeToSession(live, text);
    hooks.currentMode = () => live.mode;
  }
  trackContext(live, places, date, context);
  trackSetup(live, setupFolders, setup);
  if (searchServiceNamed(settings)) {
    // Only a session with a search service loads its tool.
    const search = (await import("../search-service-tool.ts")).searchServiceTool(settings);
    if (search) offerSearchService(live, search);
  }
  live.offerTools(sessionTools(live));
  return live;
}
