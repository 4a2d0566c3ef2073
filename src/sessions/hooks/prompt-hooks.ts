/**
 * The hooks a prompt passes before it joins the conversation: whether the
 * project's hooks may run is settled (asked once a session), `SessionStart`
 * runs before the session's first turn, `UserPromptSubmit` before every
 * turn. What they print for the model joins the prompt; a block refuses the
 * prompt, and the user is told why. Loaded by the prompt path only for a
 * session that has hooks.
 * @module
 */
import type { ImagePart, TextPart } from "../../models/types.ts";
import type { SessionHooks, TrustAsker } from "./session-hooks.ts";

/** What the prompt's hooks decided: `refused` is the reason the prompt does not run. */
export interface PromptHooks {
  refused?: string;
}

/** Runs the prompt's hooks; adds what they print for the model to `content`. */
export async function promptHooks(hooks: SessionHooks, content: Array<TextPart | ImagePart>, ask: TrustAsker | undefined, signal: AbortSignal): Promise<PromptHooks> {
  await hooks.settleTrust(ask, signal);
  const added: string[] = [];
  const started = await hooks.sessionStarting(signal);
  if (started) added.push(...started.context);
  const prompt = content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
  const verdict = await hooks.fire("UserPromptSubmit", { prompt }, signal);
  const refusal = verdict.block ?? verdict.halt;
  if (refusal !== undefined) return { refused: `The prompt was blocked by a UserPromptSubmit hook: ${refusal}` };
  added.push(...verdict.context);
  // A part of its own, marked: the prompt's own parts stay what the client sent (its fingerprint still names them).
  if (added.length > 0) content.push({ type: "text", text: `<hook-context>\n${added.join("\n")}\n</hook-context>`, addedBy: "hook" });
  return {};
}
