/**
 * `_session/rewind` params (the JetBrains AIR extension): `{sessionId,
 * beforeMessage: {messageId, messageFingerprint: "sha256:<64 hex>",
 * messageOccurrence (1-based)}, resumeAtMessage?: the same shape,
 * naming the last assistant message kept}`, and
 * `_session/rewind_files`'s: `{sessionId, beforeMessage, dryRun?}`. The SDK has no schema
 * for it; anything of the wrong shape is refused (-32602) before anything is read.
 * @module
 */
import * as v from "valibot";
import { ownParams } from "./own-params.ts";
import { MessageIdSchema } from "./prompt-params.ts";

const PointSchema = v.object({
  messageId: MessageIdSchema,
  messageFingerprint: v.pipe(v.string(), v.regex(/^sha256:[0-9a-fA-F]{64}$/, 'a messageFingerprint is "sha256:" and 64 hex digits')),
  messageOccurrence: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1_000_000)),
});

const RewindParamsSchema = v.object({
  sessionId: v.string(),
  beforeMessage: PointSchema,
  // The assistant message the client resumes at: a guard that its view and the session's agree (see rewind-points.ts).
  resumeAtMessage: v.optional(v.nullable(PointSchema)),
  _meta: v.optional(v.unknown()),
});

const RewindFilesParamsSchema = v.object({
  sessionId: v.string(),
  beforeMessage: PointSchema,
  dryRun: v.optional(v.nullable(v.boolean())),
  _meta: v.optional(v.unknown()),
});

/** A file rewind request (`_session/rewind_files`) as the handler uses it. */
export type RewindFilesParams = v.InferOutput<typeof RewindFilesParamsSchema>;

/** Parses `_session/rewind_files` params; `-32602` naming the field otherwise. */
export const parseRewindFilesParams: (raw: unknown) => RewindFilesParams = ownParams(RewindFilesParamsSchema);

/** A rewind request as the handler uses it. */
export type RewindParams = v.InferOutput<typeof RewindParamsSchema>;

/** Parses `_session/rewind` params; `-32602` naming the field otherwise. */
export const parseRewindParams: (raw: unknown) => RewindParams = ownParams(RewindParamsSchema);
