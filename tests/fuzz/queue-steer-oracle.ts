/**
 * What the queueing and steering fuzzer checks after each scenario, from
 * the answers the clients got, the model requests and the session's journal:
 * every request answered once and in the forms the protocol allows; no model
 * request with a message between a tool call and its result; a prompt the
 * model never saw answered `cancelled`; every steered message that was taken
 * in the journal exactly once, the injected ones in the order they were
 * sent; the journal's user messages in the order each model request saw them.
 */
import type { RecordedRequest } from "../helpers/fake-model-server.ts";

/** One request the fuzzer sent, and how it was answered. */
export interface Sent {
  kind: "prompt" | "steer";
  tag: string;
  client: string;
  /** Sent with `idleBehavior: "promptRequired"`. */
  promptRequired?: boolean;
  /** A cancel or `$/cancel_request` that could reach it was sent after it. */
  cancelledAfter?: boolean;
  /** A session cancel was sent while it waited and before the model was asked about it: it must end cancelled. */
  mustCancel?: boolean;
  answer?: { result?: Record<string, unknown>; error?: { code: number; data?: Record<string, unknown> } };
}

const STOP_REASONS = new Set(["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"]);

/** The tag (first word) of each user message of a chat request, the compaction summary left out. */
export function userTags(request: RecordedRequest): string[] {
  const messages = (request.body?.messages ?? []) as Array<{ role: string; content?: unknown }>;
  return messages.filter((m) => m.role === "user").map((m) => textOf(m.content).split(/\s/)[0]!).filter((tag) => /^[ps]\d+$/.test(tag));
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  return Array.isArray(content) ? content.map((p: { text?: string }) => p.text ?? "").join("") : "";
}

/** Problems with one request's message order: a message between a tool call and its result, a result with no call. */
export function toolOrderProblems(request: RecordedRequest): string[] {
  const messages = (request.body?.messages ?? []) as Array<{ role: string; tool_calls?: Array<{ id: string }>; tool_call_id?: string }>;
  const problems: string[] = [];
  let owed: string[] = [];
  for (const [i, m] of messages.entries()) {
    if (owed.length > 0) {
      if (m.role !== "tool" || m.tool_call_id !== owed[0]) problems.push(`message ${i} (${m.role}) where the result of ${owed[0]} was due`);
      else owed.shift();
      continue;
    }
    if (m.role === "tool") problems.push(`tool result ${m.tool_call_id} at ${i} follows no call`);
    if (m.role === "assistant" && m.tool_calls?.length) owed = m.tool_calls.map((c) => c.id);
  }
  return problems;
}

/** Whether `sub` appears in `all` in the same order (not necessarily next to each other). */
function isSubsequence(sub: readonly string[], all: readonly string[]): boolean {
  let at = 0;
  for (const item of all) if (item === sub[at]) at += 1;
  return at === sub.length;
}

/** Every problem the scenario shows; empty when it went right. */
export function scenarioProblems(sent: readonly Sent[], requests: readonly RecordedRequest[], journalTags: readonly string[], duplicates: readonly string[]): string[] {
  const problems: string[] = [...duplicates];
  const seen = new Set(requests.flatMap(userTags));
  const count = (tag: string) => journalTags.filter((t) => t === tag).length;
  for (const s of sent) {
    const what = `${s.kind} ${s.tag} of ${s.client}`;
    if (!s.answer) {
      problems.push(`${what} was never answered`);
      continue;
    }
    const { result, error } = s.answer;
    if (error) {
      const full = error.code === -32603 && error.data?.code === "queue_full";
      const cancelled = s.kind === "steer" && error.code === -32800 && s.cancelledAfter;
      if (!full && !cancelled) problems.push(`${what} failed: ${JSON.stringify(error).slice(0, 200)}`);
      if (count(s.tag) > 0 && full) problems.push(`${what} was refused (queue full) but is in the journal`);
      continue;
    }
    if (s.kind === "prompt") {
      const stop = String(result?.stopReason);
      if (!STOP_REASONS.has(stop)) problems.push(`${what} answered ${JSON.stringify(result)}`);
      if (stop !== "cancelled" && !seen.has(s.tag)) problems.push(`${what} answered ${stop} but the model never saw it`);
      if (stop !== "cancelled" && s.mustCancel) problems.push(`${what} was waiting when the session was cancelled, yet ran (${stop})`);
      if (stop !== "cancelled" && count(s.tag) !== 1) problems.push(`${what} answered ${stop} but is ${count(s.tag)} times in the journal`);
      if (count(s.tag) > 1) problems.push(`${what} is ${count(s.tag)} times in the journal`);
      continue;
    }
    const outcome = result?.outcome;
    if (outcome === "injected" || outcome === "startedNewTurn") {
      if (outcome === "startedNewTurn" && s.promptRequired) problems.push(`${what} asked for promptRequired but started a turn`);
      if (count(s.tag) !== 1) problems.push(`${what} was ${outcome} but is ${count(s.tag)} times in the journal`);
    } else if (outcome === "promptRequired") {
      if (!s.promptRequired || result?.reason !== "noRunningTurn") problems.push(`${what} answered ${JSON.stringify(result)}`);
      if (count(s.tag) > 0 || seen.has(s.tag)) problems.push(`${what} answered promptRequired but joined the conversation`);
    } else problems.push(`${what} answered ${JSON.stringify(result)}`);
  }
  const injected = sent.filter((s) => s.kind === "steer" && s.answer?.result?.outcome === "injected").map((s) => s.tag);
  if (!isSubsequence(injected, journalTags)) problems.push(`injected messages ${injected.join(",")} are not in that order in the journal (${journalTags.join(",")})`);
  if (new Set(journalTags).size !== journalTags.length) problems.push(`a user message is twice in the journal: ${journalTags.join(",")}`);
  for (const [i, request] of requests.entries()) {
    for (const problem of toolOrderProblems(request)) problems.push(`model request ${i + 1}: ${problem}`);
    const tags = userTags(request);
    if (!isSubsequence(tags, journalTags)) problems.push(`model request ${i + 1} saw ${tags.join(",")}, the journal replays ${journalTags.join(",")}`);
  }
  return problems;
}
