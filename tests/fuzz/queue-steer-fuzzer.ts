/**
 * The queueing and steering fuzzer (`npm run fuzz -- --target queue-steer`):
 * seeded scenarios of prompts, steering messages (some asking for
 * `promptRequired`), cancels, `$/cancel_request`s, permission answers and
 * releases of held model replies, from one client over stdio or two sharing
 * a session over WebSocket `/apc`, against the fake model server (every reply
 * held until released; a small context window, so compactions run and are
 * held too). Interleavings come from the order of the actions: steering
 * during a cancel, during a compaction, during a permission request, while
 * prompts wait. After each scenario everything is released and answered,
 * and queue-steer-oracle.ts checks what happened; then a plain prompt must
 * still work. Each action is sent after the previous one was taken (a cheap
 * request's answer marks it), so a seed gives the same actions; the agent's
 * own timing still varies between runs.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { acp, initialize, type TestClient } from "../helpers/acp-client.ts";
import { makeSandbox, type RuntimeName, type Sandbox } from "../helpers/agent-process.ts";
import { isSummaryRequest, useFakeModel } from "../helpers/queue-steer.ts";
import { connectWs, createStoredSession, startServe, TOKEN, type ServeProcess } from "../helpers/serve-process.ts";
import { startAgent, type RunningAgent } from "../helpers/session-agent.ts";
import { HeldModel } from "./queue-steer-model.ts";
import { scenarioProblems, userTags, type Sent } from "./queue-steer-oracle.ts";
import { Prng } from "./transport-prng.ts";

const { methods } = acp;

/** What to run. */
export interface QueueSteerOptions {
  seed: number;
  /** Scenarios. */
  count: number;
  /** Run exactly these scenarios (a reproduction) instead of 0 … count-1. */
  scenarios?: number[];
  runtime: RuntimeName;
  transport: "stdio" | "ws";
  /** Longest wait for everything to be answered at the end of a scenario. */
  timeoutMs: number;
  log(line: string): void;
}

/** What a run found. */
export interface QueueSteerResult {
  runtime: RuntimeName;
  transport: string;
  scenarios: number;
  actions: number;
  seconds: number;
  findings: string[];
  /** How often each interleaving of interest came up (steering during a compaction, a permission request, a cancel; queued prompts…). */
  coverage: Record<string, number>;
}

interface Permission {
  client: string;
  path: string;
  resolve(kind: "allow_once" | "reject_once" | "cancelled"): void;
}

/** The agent under test and the clients of the current scenario. */
interface Rig {
  model: HeldModel;
  sandbox: Sandbox;
  permissions: Permission[];
  /** Every permission request so far: which client was asked about which file. */
  asked: Array<{ client: string; path: string }>;
  /** Bumped on every event; `changed` wakes whoever waits for one. */
  changed(): void;
  nextChange(timeoutMs: number): Promise<void>;
  /** Opens a fresh session with one or two clients. */
  openSession(): Promise<{ sessionId: string; clients: Map<string, TestClient> }>;
  close(): Promise<void>;
}

/** Runs `count` scenarios on one agent; the first problem of each scenario is a finding. */
export async function fuzzQueueSteer(o: QueueSteerOptions): Promise<QueueSteerResult> {
  const started = Date.now();
  const rig = await startRig(o.runtime, o.transport);
  const findings: string[] = [];
  const coverage: Record<string, number> = {};
  let actions = 0;
  try {
    for (const scenario of o.scenarios ?? Array.from({ length: o.count }, (_, i) => i)) {
      const rng = new Prng(o.seed, scenario, 31);
      const outcome = await runScenario(rig, rng, o.timeoutMs, `${o.seed}.${scenario}`, coverage);
      actions += outcome.actions;
      if (outcome.problems.length > 0) {
        const finding = `scenario ${scenario} (seed ${o.seed}): ${outcome.problems.slice(0, 5).join("; ")}\n  actions: ${outcome.log.join(" ")}\n  reproduce: npm run fuzz -- --target queue-steer --seed ${o.seed} --runtime ${o.runtime} --transport ${o.transport} --inputs ${scenario}`;
        findings.push(finding);
        o.log(`FINDING ${finding}`);
      }
      if ((scenario + 1) % 10 === 0) o.log(`  ${o.runtime} ${o.transport}: scenario ${scenario + 1} of ${o.count}, ${actions} actions`);
    }
  } finally {
    await rig.close();
  }
  return { runtime: o.runtime, transport: o.transport, scenarios: o.scenarios?.length ?? o.count, actions, seconds: (Date.now() - started) / 1000, findings, coverage };
}

async function runScenario(rig: Rig, rng: Prng, timeoutMs: number, name: string, coverage: Record<string, number>): Promise<{ problems: string[]; actions: number; log: string[] }> {
  const count = (what: string) => (coverage[what] = (coverage[what] ?? 0) + 1);
  const { sessionId, clients } = await rig.openSession();
  const names = [...clients.keys()];
  const sent: Sent[] = [];
  const pending = new Map<Sent, AbortController>();
  const log: string[] = [];
  // Marks this scenario's messages, so its model requests can be told from the earlier scenarios'.
  const prefix = `[scenario-${name}]`;
  let n = 0;
  const barrier = (client: TestClient) => client.agent.request(methods.agent.session.list, {}).catch(() => undefined);
  const track = (entry: Sent, request: Promise<Record<string, unknown>>, controller: AbortController) => {
    sent.push(entry);
    pending.set(entry, controller);
    request.then(
      (result) => (entry.answer = { result }),
      (error: { code: number; data?: Record<string, unknown> }) => (entry.answer = { error: { code: error.code, ...(error.data ? { data: error.data } : {}) } }),
    ).finally(() => {
      pending.delete(entry);
      rig.changed();
    });
  };
  const total = rng.range(6, 30);
  let previous = "";
  for (let step = 0; step < total; step++) {
    const who = rng.pick(names);
    const client = clients.get(who)!;
    const action = rng.weighted<string>([[28, "prompt"], [22, "steer"], [6, "cancel"], [6, "cancel-request"], [26, "release"], [10, "permission"], [2, "drain"]]);
    switch (action) {
      case "prompt": {
        if ([...pending.keys()].some((e) => e.kind === "prompt")) count("prompt queued behind another");
        const tag = `p${++n}`;
        const text = `${tag} ${rng.pick(["", "", "[ls]", "[write]", "[stop]"])} ${prefix}`;
        const controller = new AbortController();
        track({ kind: "prompt", tag, client: who }, client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] }, { cancellationSignal: controller.signal }), controller);
        log.push(`${who}:${text.trim()}`);
        break;
      }
      case "steer": {
        if (rig.model.held.some((r) => isSummaryRequest(r.request))) count("steer during a compaction");
        if (rig.permissions.length > 0) count("steer during a permission request");
        if (previous === "cancel" && rig.model.held.length > 0) count("steer right after a cancel");
        if (pending.size > 0) count("steer while requests are pending");
        const tag = `s${++n}`;
        const promptRequired = rng.chance(0.3);
        const text = `${tag} ${rng.pick(["", "", "[ls]"])} ${prefix}`;
        const controller = new AbortController();
        const params = { sessionId, prompt: [{ type: "text", text }], ...(promptRequired ? { _meta: { steering: { idleBehavior: "promptRequired" } } } : {}) };
        track({ kind: "steer", tag, client: who, promptRequired }, client.agent.request<Record<string, unknown>>("_session/steering", params, { cancellationSignal: controller.signal }), controller);
        log.push(`${who}:steer(${text.trim()}${promptRequired ? ",promptRequired" : ""})`);
        break;
      }
      case "cancel": {
        // Stop means stop: a prompt the model has not been asked about yet must end cancelled (replies are held, so none can finish first).
        const asked = new Set(rig.model.mainRequests().filter((r) => JSON.stringify(r.body).includes(prefix)).flatMap(userTags));
        for (const entry of pending.keys()) {
          entry.cancelledAfter = true;
          if (entry.kind === "prompt" && !asked.has(entry.tag)) entry.mustCancel = true;
        }
        await client.agent.notify(methods.agent.session.cancel, { sessionId });
        log.push(`${who}:cancel`);
        break;
      }
      case "cancel-request": {
        const own = [...pending].filter(([entry]) => entry.client === who);
        if (own.length === 0) continue;
        const [entry, controller] = rng.pick(own);
        entry.cancelledAfter = true;
        controller.abort();
        log.push(`${who}:cancel_request(${entry.tag})`);
        break;
      }
      case "release":
        if (rig.model.release(rng.chance(0.7) ? 0 : rng.int(Math.max(1, rig.model.held.length)))) log.push("release");
        break;
      case "permission": {
        const permission = rig.permissions.length ? rig.permissions.splice(rng.int(rig.permissions.length), 1)[0]! : undefined;
        if (!permission) continue;
        const kind = rng.weighted<"allow_once" | "reject_once" | "cancelled">([[6, "allow_once"], [3, "reject_once"], [1, "cancelled"]]);
        permission.resolve(kind);
        log.push(`${permission.client}:${kind}(${permission.path})`);
        break;
      }
      case "drain":
        await drain(rig, pending, timeoutMs);
        log.push("drain");
        break;
    }
    await barrier(client);
    previous = action;
  }
  const drained = await drain(rig, pending, timeoutMs);
  const problems = drained ? [] : [`requests still unanswered ${timeoutMs} ms after every reply was released: ${[...pending.keys()].map((e) => e.tag).join(",")}`];
  // Queued behind whatever still runs (a turn a steering message started), so once it is answered the session is idle.
  problems.push(...(await finalPrompt(rig, clients.get(names[0]!)!, sessionId, prefix, timeoutMs)));
  const requests = rig.model.mainRequests().filter((r) => JSON.stringify(r.body).includes(prefix));
  for (const entry of sent) {
    const { result, error } = entry.answer ?? {};
    count(`${entry.kind} ${String(result?.outcome ?? result?.stopReason ?? (error ? `error ${error.code}${error.data?.code ? ` ${error.data.code}` : ""}` : "unanswered"))}`);
  }
  problems.push(...scenarioProblems(sent, requests, journalTags(rig.sandbox.home, sessionId), duplicateAnswers(clients)));
  for (const { client, path } of rig.asked.splice(0)) {
    const owner = sent.find((s) => `${s.tag}.txt` === path);
    if (owner?.client !== client) problems.push(`client ${client} was asked about ${path}, which ${owner ? `client ${owner.client}` : "nobody"} asked for`);
  }
  for (const client of clients.values()) if (clients.size > 1) client.close();
  return { problems, actions: total, log };
}

/** Releases every held reply and answers every permission request until nothing is pending; false when that takes longer than `timeoutMs`. */
async function drain(rig: Rig, pending: Map<Sent, AbortController>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (pending.size > 0 || rig.model.held.length > 0 || rig.permissions.length > 0) {
    rig.model.releaseAll();
    for (const permission of rig.permissions.splice(0)) permission.resolve("allow_once");
    const left = deadline - Date.now();
    if (left <= 0) return false;
    if (pending.size > 0) await rig.nextChange(Math.min(left, 1000));
  }
  return true;
}

/** After a scenario a plain prompt still ends its turn. */
async function finalPrompt(rig: Rig, client: TestClient, sessionId: string, prefix: string, timeoutMs: number): Promise<string[]> {
  const answer = client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: `p0 final ${prefix}` }] });
  const deadline = Date.now() + timeoutMs;
  let done: acp.PromptResponse | Error | undefined;
  answer.then((r) => (done = r), (e: Error) => (done = e)).finally(() => rig.changed());
  while (!done && Date.now() < deadline) {
    rig.model.releaseAll();
    await rig.nextChange(1000);
  }
  if (!done) return ["the final prompt was not answered"];
  if (done instanceof Error || done.stopReason !== "end_turn") return [`the final prompt ended ${JSON.stringify(done instanceof Error ? done.message : done)}`];
  return [];
}

/** Ids answered more than once, per client. */
function duplicateAnswers(clients: Map<string, TestClient>): string[] {
  const problems: string[] = [];
  for (const [name, client] of clients) {
    const counts = new Map<unknown, number>();
    for (const m of client.received) if (!("method" in m) && "id" in m) counts.set(m.id, (counts.get(m.id) ?? 0) + 1);
    for (const [id, times] of counts) if (times > 1) problems.push(`${name}: request ${JSON.stringify(id)} answered ${times} times`);
  }
  return problems;
}

/** The tags of the user messages in a session's journal, in order. */
function journalTags(home: string, sessionId: string): string[] {
  const root = join(home, "sessions");
  for (const folder of readdirSync(root)) {
    let text: string;
    try {
      text = readFileSync(join(root, folder, `${sessionId}.jsonl`), "utf8");
    } catch {
      continue;
    }
    const lines = text.trim().split("\n").map((line) => JSON.parse(line) as { type: string; message?: { role: string; content: unknown } });
    return lines.filter((l) => l.type === "message" && l.message?.role === "user").flatMap((l) => userTags({ method: "", path: "", headers: {}, body: { messages: [l.message] } }));
  }
  return [];
}

/** Starts the agent (stdio, or serve with a fresh `/apc` session and two clients per scenario). */
async function startRig(runtime: RuntimeName, transport: "stdio" | "ws"): Promise<Rig> {
  const sandbox = makeSandbox();
  let wakers: (() => void)[] = [];
  const changed = () => {
    const woken = wakers;
    wakers = [];
    for (const wake of woken) wake();
  };
  const nextChange = (timeoutMs: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      wakers.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  const model = await HeldModel.start(changed);
  // The system prompt and tools take about 2,100 tokens: past about 50 more, history is summarised before a call (and the summary is held too).
  useFakeModel(sandbox, model.server, { contextWindow: 6000, extra: { approvalMode: "ask", compaction: { reserveTokens: 3850, keepRecentTokens: 100 } } });
  const permissions: Permission[] = [];
  const asked: Array<{ client: string; path: string }> = [];
  const onPermission = (client: string) => (request: acp.RequestPermissionRequest) =>
    new Promise<acp.RequestPermissionResponse>((resolve) => {
      const path = String((request.toolCall.rawInput as { path?: unknown } | undefined)?.path ?? "");
      asked.push({ client, path });
      permissions.push({
        client,
        path,
        resolve: (kind) =>
          resolve(kind === "cancelled" ? { outcome: { outcome: "cancelled" } } : { outcome: { outcome: "selected", optionId: request.options.find((o) => o.kind === kind)!.optionId } }),
      });
      changed();
    });
  const shared = { model, sandbox, permissions, asked, changed, nextChange };
  if (transport === "stdio") {
    const agent: RunningAgent = await startAgent(runtime, sandbox, { args: [], onPermission: onPermission("A") });
    return {
      ...shared,
      openSession: async () => ({ sessionId: (await agent.newSession()).sessionId, clients: new Map([["A", agent.client]]) }),
      async close() {
        await agent.kill();
        await model.close();
        sandbox.cleanup();
      },
    };
  }
  const serve: ServeProcess = await startServe(runtime, sandbox, { args: [] });
  return {
    ...shared,
    async openSession() {
      const id = await createStoredSession(serve, sandbox.project);
      const url = `${serve.wsUrl}/v1/session/${id}/apc`;
      const clients = new Map([
        ["A", connectWs(url, TOKEN, { onPermission: onPermission("A") })],
        ["B", connectWs(url, TOKEN, { onPermission: onPermission("B") })],
      ]);
      for (const client of clients.values()) await initialize(client);
      await clients.get("A")!.agent.request(methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] });
      await clients.get("B")!.agent.request(methods.agent.session.resume, { sessionId: id, cwd: sandbox.project });
      return { sessionId: id, clients };
    },
    async close() {
      await serve.stop("SIGKILL");
      await model.close();
      sandbox.cleanup();
    },
  };
}
