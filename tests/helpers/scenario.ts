/**
 * One agent process with a scripted faux model, a sandbox project and an
 * SDK client, ready to prompt: the common set-up of the end-to-end suites.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { connectClient, initialize, acp, type ClientOptions, type TestClient } from "./acp-client.ts";
import { makeSandbox, spawnAgent, type AgentProcess, type Launcher, type RuntimeName, type Sandbox } from "./agent-process.ts";

export interface ScenarioOptions extends ClientOptions {
  /** Faux turns (JSON form of ACP_EDGE_FAUX_SCRIPT), or made from the sandbox (to name its folders). */
  script: unknown[] | ((sandbox: Sandbox) => unknown[]);
  settings?: Record<string, unknown>;
  args?: string[];
  capabilities?: acp.ClientCapabilities;
  /** Files to create, relative to the sandbox root (project files live under `project/`). */
  files?: Record<string, string>;
  /** Extra environment variables for the agent, or made from the sandbox. */
  env?: Record<string, string> | ((sandbox: Sandbox) => Record<string, string>);
}

export interface Scenario {
  sandbox: Sandbox;
  proc: AgentProcess;
  client: TestClient;
  sessionId: string;
  newSession: acp.NewSessionResponse;
  prompt(text: string): Promise<acp.PromptResponse>;
  /** Updates of this session from `index` on. */
  updates(from?: number): acp.SessionUpdate[];
  close(): void;
}

/** Starts the agent on `runtime`, or through `launcher` (another way of starting it, e.g. in a namespace of its own). */
export async function startScenario(runtime: RuntimeName | Launcher, options: ScenarioOptions): Promise<Scenario> {
  const sandbox = makeSandbox();
  for (const [path, content] of Object.entries(options.files ?? {})) sandbox.write(path, content);
  const script = sandbox.write("script.json", JSON.stringify(typeof options.script === "function" ? options.script(sandbox) : options.script));
  const env = typeof options.env === "function" ? options.env(sandbox) : options.env;
  if (options.settings) writeFileSync(join(sandbox.home, "settings.json"), JSON.stringify(options.settings));
  const proc = spawnAgent(runtime, ["agent", "stdio", "--model", "faux/script", ...(options.args ?? [])], {
    // A test may choose its own temp dir (the sandbox's writable one) and home.
    env: { TMPDIR: sandbox.root, ...env, ACP_EDGE_HOME: sandbox.home, ACP_EDGE_FAUX_SCRIPT: script },
  });
  const client = connectClient(proc, options);
  await initialize(client, options.capabilities ?? {});
  const newSession = await client.agent.request(acp.methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] });
  const sessionId = newSession.sessionId;
  return {
    sandbox,
    proc,
    client,
    sessionId,
    newSession,
    prompt: (text) => client.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] }),
    updates: (from = 0) => client.updates(sessionId).slice(from),
    close() {
      client.close();
      proc.child.kill("SIGKILL");
      sandbox.cleanup();
    },
  };
}

/** Answers permission requests with the option of this kind, recording each request. */
export function answering(kind: acp.PermissionOptionKind | ((request: acp.RequestPermissionRequest, index: number) => acp.PermissionOptionKind | "never")) {
  const requests: acp.RequestPermissionRequest[] = [];
  const onPermission = (params: acp.RequestPermissionRequest): Promise<acp.RequestPermissionResponse> | acp.RequestPermissionResponse => {
    requests.push(params);
    const wanted = typeof kind === "function" ? kind(params, requests.length - 1) : kind;
    if (wanted === "never") return new Promise(() => undefined);
    const option = params.options.find((o) => o.kind === wanted);
    if (!option) throw new Error(`no ${wanted} option offered: ${JSON.stringify(params.options)}`);
    return { outcome: { outcome: "selected", optionId: option.optionId } };
  };
  return { requests, onPermission };
}

/** The tool_call and tool_call_update payloads of one call, in order. */
export function toolEvents(updates: acp.SessionUpdate[], toolCallId: string): acp.SessionUpdate[] {
  return updates.filter((u) => (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") && u.toolCallId === toolCallId);
}

/** The last status a tool call reached. */
export function finalStatus(updates: acp.SessionUpdate[], toolCallId: string): string | undefined {
  return toolEvents(updates, toolCallId)
    .map((u) => (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update" ? u.status : undefined))
    .filter(Boolean)
    .at(-1) as string | undefined;
}

export function toolText(updates: acp.SessionUpdate[], toolCallId: string): string {
  return JSON.stringify(toolEvents(updates, toolCallId).at(-1));
}

/** The text a tool call's result holds (what the model read), from its last update. */
export function toolResultText(updates: acp.SessionUpdate[], toolCallId: string): string {
  const last = toolEvents(updates, toolCallId).at(-1) as { content?: Array<{ type: string; content?: { type: string; text?: string } }> } | undefined;
  return (last?.content ?? []).map((c) => c.content?.text ?? "").join("\n");
}
