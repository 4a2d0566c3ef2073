/**
 * The steps that act around one tool call (see `executeCall`): each is asked
 * right before an allowed call runs and may hand back what to do once it ran.
 * Steps run in their order before the call and in reverse order after it, so
 * a concern that wraps another (a sandbox around a command, a checkpoint
 * around both) stays outside it. A new concern adds a step, not a branch.
 * @module
 */
import type { ToolDefinition, ToolResult, Workspace } from "../tools/types.ts";
import type { EventSink } from "./events.ts";

/** The call a step is told about. */
export interface StepCall {
  toolCallId: string;
  tool: ToolDefinition;
  input: unknown;
  workspace: Workspace;
  signal: AbortSignal;
  /** Where the step reports what it found (recorded with the turn's other events). */
  emit: EventSink;
}

/**
 * What a step does once the call ran (however it ended: a result, a failure, an abort).
 * It is given the result when the tool returned one, and may hand back a result to use
 * instead (what it found, appended); undefined keeps the result as it is.
 */
export type AfterCall = (result?: ToolResult) => Promise<ToolResult | undefined | void>;

/** One concern around a tool call. */
export interface CallStep {
  /** Right before the allowed call runs; what it returns runs once the call is over. A failure here is the step's own: the call still runs. */
  before(call: StepCall): Promise<AfterCall | undefined>;
}

/** What `aroundCall` hands back: runs the `after`s, each given the result the one before it left. */
export type AfterAll = (result?: ToolResult) => Promise<ToolResult | undefined>;

/** Runs the steps' `before`s in order; the returned function runs their `after`s in reverse order. Neither throws. */
export async function aroundCall(steps: readonly CallStep[], call: StepCall): Promise<AfterAll> {
  const afters: AfterCall[] = [];
  for (const step of steps) {
    const after = await step.before(call).catch(() => undefined);
    if (after) afters.unshift(after);
  }
  return async (result) => {
    let current = result;
    for (const after of afters) {
      const changed = await after(current).catch(() => undefined);
      if (current && changed) current = changed;
    }
    return current;
  };
}

/**
 * A step whose code loads the first time a call it `applies` to runs, so a
 * session that never makes such a call never loads it.
 */
export function lazyStep(applies: (call: StepCall) => boolean, load: () => Promise<CallStep>): CallStep {
  let step: Promise<CallStep> | undefined;
  return {
    async before(call: StepCall) {
      if (!applies(call)) return undefined;
      step ??= load();
      return await (await step).before(call);
    },
  };
}
