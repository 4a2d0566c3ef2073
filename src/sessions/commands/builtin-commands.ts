/**
 * The built-in slash commands. They answer without calling the model,
 * except `/compact`, which asks the model for the summary.
 * @module
 */
import { describeSandboxStatus, probedSandboxStatus } from "../sandbox-status.ts";
import type { EventSink, StopReason } from "../../engine/events.ts";
import { SessionBusyError } from "../../engine/session.ts";
import { cachedInputShare } from "../../models/cost.ts";
import type { Usage } from "../../models/types.ts";
import { join } from "../../runtime/files/path.ts";
import { cwdSlug } from "../../store/cwd-slug.ts";
import { howItEnded } from "../../tools/shell/background-report.ts";
import type { LiveSession } from "../live-session.ts";
import { normalizeTitle, retitleLive } from "../lifecycle/rename-session.ts";
import type { AgentServices } from "../services.ts";
import { broadcast } from "../session-broadcast.ts";
import { availableCommands } from "./slash-commands.ts";
import type { EditorFiles } from "../checkpoints/restore-files.ts";

/** What a built-in command works on. */
export interface BuiltinContext {
  live: LiveSession;
  services: AgentServices;
  emit: EventSink;
  /** The editor's side of the files, when the client that sent the command reads or writes them for the agent. */
  editor?: EditorFiles;
}

type Builtin = (args: string, context: BuiltinContext) => Promise<StopReason>;

async function say(context: BuiltinContext, text: string): Promise<StopReason> {
  await broadcast(context.live, { type: "message", text });
  return "end_turn";
}

/** How much of the session's input the provider's cache served, as `/session` shows it. */
function cacheLine(totals: Usage): string {
  const share = cachedInputShare(totals);
  return share === undefined ? "nothing sent yet" : `${(share * 100).toFixed(1)}% of ${formatTokens(totals.input + totals.cacheRead + totals.cacheWrite)} input tokens`;
}

function formatTokens(n: number): string {
  return n >= 10_000 ? `${Math.round(n / 1000)}k` : String(n);
}

const BUILTINS: Record<string, Builtin> = {
  async name(args, context) {
    const title = normalizeTitle(args);
    if (!title) return await say(context, "Usage: /name <title>");
    // Titles name sessions (serve's `{ref}`), so one may not take another session's title.
    if (!(await retitleLive(context.services, context.live, title))) {
      return await say(context, `Another session is already titled "${title}"; choose another title.`);
    }
    return await say(context, `Session renamed to "${title}".`);
  },

  async session(_args, context) {
    const { live, services } = context;
    const history = live.agent.history;
    const count = (role: string) => history.filter((m) => m.role === role).length;
    const t = live.agent.totals;
    const info = live.agent.model.info;
    const lines = [
      `Session ${live.id}${live.title ? ` — "${live.title}"` : ""}`,
      `Directory: ${live.cwd}`,
      `Model: ${info.provider}/${info.id} (thinking: ${info.reasoning ? live.agent.thinking : "off"}); mode: ${live.mode}`,
      `Messages in context: ${history.length} (${count("user")} user, ${count("assistant")} assistant, ${count("tool")} tool results)`,
      `Context: ${formatTokens(live.agent.contextUsed)} of ${formatTokens(info.contextWindow)} tokens`,
      `Tokens so far: ${formatTokens(t.input)} in, ${formatTokens(t.output)} out, ${formatTokens(t.cacheRead)} cache read, ${formatTokens(t.cacheWrite)} cache write; ${t.requests} model calls`,
      `Input from the cache: ${cacheLine(t)}`,
      `Cost: ${t.cost === undefined ? "unknown (no price for this model)" : `$${t.cost.toFixed(4)}`}`,
      describeSandboxStatus(await probedSandboxStatus(live.sandbox, live.mode)),
      `Stored: ${services.options.noSession ? "in memory only (--no-session)" : join(services.sessionDir, cwdSlug(live.cwd), `${live.id}.jsonl`)}`,
      backgroundLine(live),
      ...(live.hooks ? (await import("../hooks/hooks-status.ts")).hookLines(live) : ["Hooks: none"]),
    ];
    return await say(context, lines.join("\n"));
  },

  async help(_args, context) {
    const lines = availableCommands(context.live).map((c) => `/${c.name}${c.input ? ` <${c.input.hint}>` : ""} — ${c.description}`);
    return await say(context, `Commands:\n${lines.join("\n")}`);
  },

  async undo(_args, context) {
    // Loaded on first use: most sessions never rewind.
    const { undoCommand } = await import("../rewind/rewind-commands.ts");
    return await say(context, await undoCommand(context.services, context.live, context.editor));
  },

  async rewind(args, context) {
    const { rewindCommand } = await import("../rewind/rewind-commands.ts");
    return await say(context, await rewindCommand(context.services, context.live, args, context.editor));
  },

  async compact(args, context) {
    try {
      const outcome = await context.live.compact(context.emit, args.trim() || undefined);
      if (!outcome) return await say(context, "Nothing to compact yet: the conversation is still short.");
      return "end_turn";
    } catch (error) {
      if (error instanceof SessionBusyError) throw error;
      return await say(context, `Compaction failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  },
};

/** The built-in command called `name`, if there is one. */
export function builtinCommand(name: string): Builtin | undefined {
  return Object.hasOwn(BUILTINS, name) ? BUILTINS[name] : undefined;
}

/** What runs in the background: each command's id, command line (cut) and state. */
function backgroundLine(live: LiveSession): string {
  const commands = live.backgroundCommands();
  if (commands.length === 0) return "Background commands: none";
  const items = commands.map((c) => {
    const line = c.command.length > 60 ? `${c.command.slice(0, 59)}…` : c.command;
    const state = c.exit ? howItEnded(c.exit) : `running for ${Math.round((Date.now() - c.startedAt) / 1000)} s`;
    return `  ${c.id}: ${line.replace(/\s+/g, " ")} (${state}${c.terminalId ? ", in the editor's terminal" : ""}${c.sandboxed ? ", sandboxed" : ""})`;
  });
  return [`Background commands (${commands.length}):`, ...items].join("\n");
}

