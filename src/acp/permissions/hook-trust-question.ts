/**
 * "Run this project's hooks?": the one question a session asks before a
 * project's hooks may run, as a `session/request_permission` naming every
 * command and the event it runs on. "Allow always for this project" is
 * remembered for these exact hook files; anything else — a rejection, a
 * cancel, no answer in time, a client that cannot answer — means no.
 * @module
 */
import { nanoid } from "nanoid";
import type { HookCommand } from "../../sessions/hooks/hook-config.ts";
import type { LiveSession } from "../../sessions/live-session.ts";
import { answerTimeoutMs } from "../client/bounded-client-request.ts";
import type { AgentContext, PermissionOption } from "../sdk.ts";
import { askClient } from "./ask-client.ts";

const ALLOW_ALWAYS = "allow_always";
/**
 * Characters that would let a command look like another in the question: controls (new lines, ESC
 * starting terminal sequences), bidirectional overrides and other invisible ones. Shown escaped.
 */
const DISGUISE = /[\u0000-\u001F\u007F-\u009F\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;

/** A command as the user must see it to judge it: whole, every hidden character spelled out. */
function visible(command: string): string {
  return command.replace(DISGUISE, (c) => `\\u{${c.codePointAt(0)!.toString(16).toUpperCase()}}`);
}
const REJECT = "reject_once";

/** Asks `client` whether the project hooks `commands` of `live` may run; true only when it chose to allow them. */
export async function askHookTrust(live: LiveSession, client: AgentContext, commands: readonly HookCommand[], signal: AbortSignal): Promise<boolean> {
  const options: PermissionOption[] = [
    { optionId: ALLOW_ALWAYS, name: "Allow always for this project", kind: "allow_always" },
    { optionId: REJECT, name: "Reject", kind: "reject_once" },
  ];
  const lines = commands.map((hook) => `${hook.event}${hook.matcher === "*" ? "" : ` (${visible(hook.matcher)})`}: ${visible(hook.command)}`);
  const files = [...new Set(commands.map((hook) => hook.file))];
  const answer = await askClient({
    client,
    sessionId: live.id,
    toolCall: {
      toolCallId: `hooks_${nanoid(12)}`,
      title: "Run this project's hooks?",
      kind: "execute",
      status: "pending",
      locations: files.map((path) => ({ path })),
      rawInput: { hooks: commands.map((hook) => ({ event: hook.event, matcher: hook.matcher, command: hook.command, file: hook.file })) },
      content: [
        {
          type: "content",
          content: { type: "text", text: `This project's settings run these commands on your machine, as you, whenever their events happen:\n${lines.join("\n")}` },
        },
      ],
    },
    options,
    signal,
    timeoutMs: answerTimeoutMs(live),
  });
  return answer.outcome === "selected" && answer.optionId === ALLOW_ALWAYS;
}
