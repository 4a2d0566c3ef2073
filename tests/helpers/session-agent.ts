/**
 * An agent process with a fixed home (so several processes share a session
 * directory), started and stopped at will: for restart, crash and
 * two-process tests.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { connectClient, initialize, acp, type ClientOptions, type TestClient } from "./acp-client.ts";
import { spawnAgent, type AgentProcess, type RuntimeName, type Sandbox } from "./agent-process.ts";

export interface RunningAgent {
  proc: AgentProcess;
  client: TestClient;
  newSession(cwd?: string): Promise<acp.NewSessionResponse>;
  prompt(sessionId: string, text: string): Promise<acp.PromptResponse>;
  /** Closes stdin and waits for a clean exit. */
  stop(): Promise<number | null>;
  kill(): Promise<void>;
}

export async function startAgent(
  runtime: RuntimeName,
  sandbox: Sandbox,
  options: ClientOptions & { script?: unknown[]; args?: string[]; env?: Record<string, string>; capabilities?: acp.ClientCapabilities } = {},
): Promise<RunningAgent> {
  const env: Record<string, string> = { ACP_EDGE_HOME: sandbox.home, ...(options.env ?? {}) };
  if (options.script) {
    const file = join(sandbox.root, `script-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify(options.script));
    env.ACP_EDGE_FAUX_SCRIPT = file;
  }
  const proc = spawnAgent(runtime, ["agent", "stdio", ...(options.args ?? ["--model", "faux/script"])], { env });
  const client = connectClient(proc, options);
  await initialize(client, options.capabilities ?? {});
  return {
    proc,
    client,
    newSession: (cwd = sandbox.project) => client.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] }),
    prompt: (sessionId, text) => client.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] }),
    async stop() {
      proc.child.stdin!.end();
      return (await proc.exited).code;
    },
    async kill() {
      proc.child.kill("SIGKILL");
      await proc.exited;
    },
  };
}
