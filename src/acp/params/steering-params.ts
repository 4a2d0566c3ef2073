/**
 * `_session/steering` params: `{sessionId, prompt: ContentBlock[] (at least
 * one), _meta?: {steering?: {idleBehavior?: "promptRequired"}}}`. The SDK
 * has no schema for this extension, so its blocks are checked here the way
 * the SDK checks `session/prompt`'s, and anything unexpected in the steering
 * options is refused (`-32602`) rather than guessed at.
 * @module
 */
import * as v from "valibot";
import { ownParams } from "./own-params.ts";
import type { ContentBlock } from "../sdk.ts";

const optionalText = v.nullish(v.string());

/** A content block, checked as the SDK checks `session/prompt`'s (fields it does not know are dropped). */
export const ContentBlockSchema = v.variant("type", [
  v.object({ type: v.literal("text"), text: v.string() }),
  v.object({ type: v.literal("image"), data: v.string(), mimeType: v.string(), uri: optionalText }),
  v.object({ type: v.literal("audio"), data: v.string(), mimeType: v.string() }),
  v.object({ type: v.literal("resource_link"), uri: v.string(), name: v.string(), mimeType: optionalText, title: optionalText, description: optionalText }),
  v.object({
    type: v.literal("resource"),
    resource: v.union([
      v.object({ uri: v.string(), text: v.string(), mimeType: optionalText }),
      v.object({ uri: v.string(), blob: v.string(), mimeType: optionalText }),
    ]),
  }),
]);

const SteeringParamsSchema = v.object({
  sessionId: v.string(),
  prompt: v.pipe(v.array(ContentBlockSchema), v.minLength(1, "the prompt needs at least one content block")),
  _meta: v.nullish(
    v.looseObject({
      steering: v.nullish(
        v.looseObject({
          idleBehavior: v.nullish(v.picklist(["promptRequired"], 'unsupported steering idleBehavior; the only one is "promptRequired"')),
        }),
      ),
    }),
  ),
});

/** A steering request as the handler uses it. */
export interface SteeringParams {
  sessionId: string;
  prompt: ContentBlock[];
  /** `promptRequired`: when no turn runs, start none and say so. */
  idleBehavior?: "promptRequired";
}

const checkSteeringParams = ownParams(SteeringParamsSchema);

/** Parses `_session/steering` params; `-32602` naming the field otherwise. */
export function parseSteeringParams(raw: unknown): SteeringParams {
  const { sessionId, prompt, _meta } = checkSteeringParams(raw);
  const idleBehavior = _meta?.steering?.idleBehavior ?? undefined;
  return { sessionId, prompt: prompt as ContentBlock[], ...(idleBehavior ? { idleBehavior } : {}) };
}
