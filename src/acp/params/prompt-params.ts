/**
 * `session/prompt` params with the client's `messageId` (the id its user
 * message is to be recorded under): the SDK's stable schema has no such
 * field and would drop it, so the request is checked here, its blocks as
 * `_session/steering`'s are. An id is at most 200 printable characters: it
 * is stored, replayed and compared, so a hostile megabyte is refused (-32602).
 * @module
 */
import * as v from "valibot";
import { ownParams } from "./own-params.ts";
import { ContentBlockSchema } from "./steering-params.ts";
import type { ContentBlock } from "../sdk.ts";

/** The longest `messageId` a client may give. */
export const MAX_MESSAGE_ID_CHARS = 200;

/** A client's message id: printable, no control characters, bounded. */
export const MessageIdSchema = v.pipe(
  v.string(),
  v.minLength(1, "a messageId cannot be empty"),
  v.maxLength(MAX_MESSAGE_ID_CHARS, `a messageId is at most ${MAX_MESSAGE_ID_CHARS} characters`),
  v.regex(/^[^\p{Cc}\p{Cs}]+$/u, "a messageId cannot hold control characters"),
);

const PromptParamsSchema = v.object({
  sessionId: v.string(),
  prompt: v.array(ContentBlockSchema),
  messageId: v.nullish(MessageIdSchema),
  _meta: v.nullish(v.record(v.string(), v.unknown())),
});

/** A prompt request as the handler uses it. */
export interface PromptParams {
  sessionId: string;
  prompt: ContentBlock[];
  messageId?: string;
}

const checkPromptParams = ownParams(PromptParamsSchema);

/** Parses `session/prompt` params; `-32602` naming the field otherwise. */
export function parsePromptParams(raw: unknown): PromptParams {
  const { sessionId, prompt, messageId } = checkPromptParams(raw);
  return { sessionId, prompt: prompt as ContentBlock[], ...(messageId ? { messageId } : {}) };
}
