/**
 * The steps that act around one tool call (see `executeCall`): each may judge
 * the call before it is authorized (`gate`), and is asked right before an
 * allowed call runs, handing back what to do once it ran. Steps run in their
 * order before the call and in reverse order after it, so a concern that
 * wraps another (a sandbox around a command, a checkpoint around both) stays
 * outside it. A new concern adds a step, not a branch.
 * @module
 */
import type { BackgroundCommandsView, ToolDefinition, ToolResult, Workspace } from "../tools/types.ts";
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

/**
 * What a step says about a call before the permission gate: `deny` stops it
 * (the reason is the call's result), `ask` makes the gate ask the user even
 * where it would not, `allow` lets the gate skip a question it would ask —
 * never what the mode or a rule refuses.
 */
export type Gate = { decision: "deny"; reason: string } | { decision: "ask"; reason?: string } | { decision: "allow"; reason?: string };

/** How the call ended, for what runs after it: its result, or the failure's text. */
export interface CallOutcome {
  result?: ToolResult;
  failure?: string;
}

/** What a step does once the call ran (however it ended); text it returns is added to the call's result for the model. */
export type AfterCall = (outcome: CallOutcome) => Promise<string | void>;

/** One concern around a tool call. */
export interface CallStep {
  /** Before the call is authorized; a failure here counts as no opinion. */
  gate?(call: StepCall): Promise<Gate | undefined>;
  /** Right before the allowed call runs; what it returns runs once the call is over. A failure here is the step's own: the call still runs. */
  before(call: StepCall): Promise<AfterCall | undefined>;
}

/** The steps' combined word on a call: the first `deny` wins, then any `ask`, then an `allow`. */
export async function gateCall(steps: readonly CallStep[], call: StepCall): Promise<Gate | undefined> {
  let verdict: Gate | undefined;
  for (const step of steps) {
    const gate = await step.gate?.(call).catch(() => undefined);
    if (!gate) continue;
    if (gate.decision === "deny") return gate;
    if (gate.decision === "ask" || !verdict) verdict = verdict?.decision === "ask" ? verdict : gate;
  }
  return verdict;
}

/** Runs the steps' `before`s in order; the returned function runs their `after`s in reverse order and gives their notes. Neither throws. */
export async function aroundCall(steps: readonly CallStep[], call: StepCall): Promise<(outcome: CallOutcome) => Promise<string[]>> {
  const afters: AfterCall[] = [];
  for (const step of steps) {
    const after = await step.before(call).catch(() => undefined);
    if (after) afters.unshift(after);
  }
  return async (outcome) => {
    const notes: string[] = [];
    for (const after of afters) {
      const note = await after(outcome).catch(() => undefined);
      if (note) notes.push(note);
    }
    return notes;
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
