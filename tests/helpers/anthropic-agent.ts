/**
 * An agent on one runtime whose model is Anthropic at a given base URL, in
 * a sandbox, with its session open: the set-up of the suites about model
 * requests on the network (errors, proxies). Every agent started here is
 * stopped by `stopAnthropicAgents()` (call it after each test).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { connectClient, initialize, acp, type TestClient } from "./acp-client.ts";
import { makeSandbox, spawnAgent, type AgentProcess, type RuntimeName, type Sandbox } from "./agent-process.ts";

/** A running agent with its open session. */
export interface AnthropicAgent {
  sandbox: Sandbox;
  proc: AgentProcess;
  client: TestClient;
  sessionId: string;
  /** Sends one text prompt to the session. */
  prompt(text: string): Promise<acp.PromptResponse>;
}

/** How the agent is started. */
export interface AnthropicAgentOptions {
  /** The API key it is given. */
  key: string;
  /** More environment variables. */
  env?: Record<string, string>;
  /** settings.json's maxRetries (default 0). */
  maxRetries?: number;
  mcpServers?: acp.McpServer[];
  /** A `.env` file in the project, where the agent starts. */
  dotenv?: string;
}

const running: AnthropicAgent[] = [];

/** Starts the agent in its sandbox's project folder, in yolo mode, and opens a session. */
export async function startAnthropicAgent(runtime: RuntimeName, baseUrl: string, options: AnthropicAgentOptions): Promise<AnthropicAgent> {
  const sandbox = makeSandbox();
  writeFileSync(join(sandbox.home, "settings.json"), JSON.stringify({ maxRetries: options.maxRetries ?? 0 }));
  if (options.dotenv) sandbox.write("project/.env", options.dotenv);
  const proc = spawnAgent(runtime, ["agent", "stdio", "--model", "anthropic/claude-sonnet-4-5", "--approval-mode", "yolo"], {
    cwd: sandbox.project,
    env: { ACP_EDGE_HOME: sandbox.home, ANTHROPIC_BASE_URL: baseUrl, ANTHROPIC_API_KEY: options.key, ...options.env },
  });
  const client = connectClient(proc);
  const agent: AnthropicAgent = {
    sandbox,
    proc,
    client,
    sessionId: "",
    prompt: (text) => client.agent.request(acp.methods.agent.session.prompt, { sessionId: agent.sessionId, prompt: [{ type: "text", text }] }),
  };
  running.push(agent);
  await initialize(client);
  ({ sessionId: agent.sessionId } = await client.agent.request(acp.methods.agent.session.new, { cwd: sandbox.project, mcpServers: options.mcpServers ?? [] }));
  return agent;
}

/** Stops every agent started so far and removes its sandbox. */
export function stopAnthropicAgents(): void {
  for (const agent of running.splice(0)) {
    agent.client.close();
    agent.proc.child.kill("SIGKILL");
    agent.sandbox.cleanup();
  }
}
