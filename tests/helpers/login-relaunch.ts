/**
 * The command lines an agent gives a client for its terminal login, run as
 * the client would, for a way acp-edge is installed: the terminal method's
 * `args` appended to the launch command, and the older
 * `_meta["terminal-auth"]` command line as it is. Each gets `--status` added,
 * so the login they start answers without a terminal.
 */
import { expect } from "bun:test";
import { connectClient, acp } from "./acp-client.ts";
import { runAgentCommand, spawnAgent, type Launcher, type Sandbox } from "./agent-process.ts";

export async function checkLoginRelaunch(launcher: Launcher, sandbox: Sandbox, env: Record<string, string> = {}): Promise<void> {
  const agent = spawnAgent(launcher, ["agent", "stdio"], { env: { ACP_EDGE_HOME: sandbox.home, ...env } });
  const client = connectClient(agent);
  let init: acp.InitializeResponse;
  try {
    init = await client.agent.request(acp.methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: { auth: { terminal: true }, _meta: { "terminal-auth": true } },
    });
  } finally {
    client.close();
    agent.child.kill("SIGKILL");
    await agent.exited;
  }
  const method = init.authMethods?.find((m) => m.id === "acp-edge-login") as { args: string[]; _meta: { "terminal-auth": { command: string; args: string[] } } };
  expect(method.args).toEqual(["login"]);
  const appended = await runAgentCommand(launcher, ["agent", "stdio", ...method.args, "--status"], { env: { ACP_EDGE_HOME: sandbox.home, ...env } });
  expect({ code: appended.code, stderr: appended.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
  expect(appended.stdout).toMatch(/^PROVIDER\s+CREDENTIALS/);
  const legacy = method._meta["terminal-auth"];
  const run = await runAgentCommand({ command: legacy.command, args: legacy.args, ...(launcher.cwd ? { cwd: launcher.cwd } : {}) }, ["--status"], {
    env: { ACP_EDGE_HOME: sandbox.home, ...env },
  });
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
  expect(run.stdout).toMatch(/^PROVIDER\s+CREDENTIALS/);
}
