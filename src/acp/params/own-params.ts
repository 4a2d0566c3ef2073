/**
 * Params of methods the SDK's stable schemas do not know (the unstable
 * session methods, and fields such as `session/list`'s `archived`): checked
 * here with valibot, with the same `-32602` a schema failure gets.
 * @module
 */
import * as v from "valibot";
import { invalidParams } from "../errors.ts";

/** Issues named in one refusal, and characters of each: an issue's message quotes the value it received, so a hostile megabyte is not echoed back whole. */
const MAX_ISSUES = 3;
const MAX_ISSUE_CHARS = 200;

/** A parser for `onRequest` that checks params against `schema`, refusing with `-32602` naming each failing field. */
export function ownParams<S extends v.GenericSchema>(schema: S): (raw: unknown) => v.InferOutput<S> {
  return (raw) => {
    const result = v.safeParse(schema, raw);
    if (!result.success) {
      const issues = result.issues.slice(0, MAX_ISSUES).map((i) => `${v.getDotPath(i) ?? "params"}: ${i.message}`.slice(0, MAX_ISSUE_CHARS));
      throw invalidParams(issues.join("; "));
    }
    return result.output;
  };
}

/** `_meta`, which every ACP request may carry: never read, and (as the schema says) a malformed one is no error. */
export const META = v.optional(v.unknown());

/** Params naming one session. */
export const SessionIdParams = v.object({ sessionId: v.string(), _meta: META });
