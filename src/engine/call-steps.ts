/**
 * The steps that act around one tool call (see `executeCall`): each is asked
 * right before an allowed call runs and may hand back what to do once it ran.
 * Steps run in their order before the call and in reverse order after it, so
 * a concern that wraps another (a sandbox around a command, a checkpoint
 * around both) stays outside it. A new concern adds a step, not a branch.
 * @module
 */
import type { BackgroundCommandsView, ToolDefinition, Workspace } from "../tools/types.ts";
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
  /** The session's background commands (a call may start one that runs on after it). */
  backgroundCommands?: BackgroundCommandsView;
}

/** What a step does once the call ran (however it ended: a result, a failure, an abort). */
export type AfterCall = () => Promise<void>;

/** One concern around a tool call. */
export interface CallStep {
  /** Right before the allowed call runs; what it returns runs once the call is over. A failure here is the step's own: the call still runs. */
  before(call: StepCall): Promise<AfterCall | undefined>;
}

/** Runs the steps' `before`s in order; the returned function runs their `after`s in reverse order. Neither throws. */
export async function aroundCall(steps: readonly CallStep[], call: StepCall): Promise<AfterCall> {
  const afters: AfterCall[] = [];
  for (const step of steps) {
    const after = await step.before(call).catch(() => undefined);
    if (after) afters.unshift(after);
  }
  return async () => {
    for (const after of afters) await after().catch(() => undefined);
  };
}
