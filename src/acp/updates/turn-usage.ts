/**
 * A prompt's own token counts for its `session/prompt` answer (`usage`, an
 * unstable field): the sum over the model calls of its turn, while
 * `usage_update` keeps telling the context size and the session's cost.
 * @module
 */
import type { Usage } from "../../models/types.ts";

/** The counts of one turn as they are summed. */
export interface TurnUsage {
  /** Adds one model call's usage (hand it to the turn as `onUsage`). */
  add(usage: Usage): void;
  /** `{usage}` for the answer, or nothing when no model call reported usage (a built-in command). */
  answer(): { usage?: { totalTokens: number; inputTokens: number; outputTokens: number; cachedReadTokens: number; cachedWriteTokens: number } };
}

/**
 * A fresh sum. Each category is counted once: `inputTokens` are the input
 * tokens not served from or written to a cache, beside `cachedReadTokens` and
 * `cachedWriteTokens`, and `totalTokens` is the sum of all four kinds.
 */
export function turnUsage(): TurnUsage {
  let calls = 0;
  const sum: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  return {
    add(usage) {
      calls += 1;
      sum.input += usage.input;
      sum.output += usage.output;
      sum.cacheRead += usage.cacheRead;
      sum.cacheWrite += usage.cacheWrite;
    },
    answer() {
      if (calls === 0) return {};
      return {
        usage: {
          totalTokens: sum.input + sum.output + sum.cacheRead + sum.cacheWrite,
          inputTokens: sum.input,
          outputTokens: sum.output,
          cachedReadTokens: sum.cacheRead,
          cachedWriteTokens: sum.cacheWrite,
        },
      };
    },
  };
}
