/**
 * The same few checks run against every way acp-edge ships (installed npm
 * package, single file, compiled binary, container image): one faux turn over
 * stdio, one over WebSocket from `agent serve` with a clean SIGTERM and the
 * session left on disk, and the offline demo.
 */
import { expect } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { agentText, connectClient, initialize, acp, type TestClient } from "./acp-client.ts";
import { runAgentCommand, spawnAgent, type Launcher, type Sandbox } from "./agent-process.ts";
import { connectWs, startServe } from "./serve-process.ts";

/** The faux model's one scripted answer, written where the agent can read it. */
export function writeTurnScript(sandbox: Sandbox, answer: string, relative = "script.json"): string {
  return sandbox.write(relative, JSON.stringify([{ text: answer }]));
}

/** `initialize`, `session/new` and one prompt over stdio; the faux model answers `answer`. */
export async function checkStdioTurn(launcher: Launcher, sandbox: Sandbox, answer: string, env: Record<string, string> = {}): Promise<void> {
  const script = writeTurnScript(sandbox, answer);
  await withStdioAgent(launcher, ["agent", "stdio", "--model", "faux/script"], { ACP_EDGE_HOME: sandbox.home, ACP_EDGE_FAUX_SCRIPT: script, ...env }, async (client) => {
    const init = await initialize(client);
    expect(init.protocolVersion).toBe(1);
    expect(init.agentInfo?.name).toBe("acp-edge");
    const { sessionId } = await client.agent.request(acp.methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] });
    const response = await client.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hello" }] });
    expect(response.stopReason).toBe("end_turn");
    expect(agentText(client.updates(sessionId))).toBe(answer);
  });
}

/** Starts the agent with `args` and `env`, runs `check` with a client over its stdio, and always ends it; a failure carries its stderr. */
export async function withStdioAgent(launcher: Launcher, args: string[], env: Record<string, string>, check: (client: TestClient) => Promise<void>): Promise<void> {
  const proc = spawnAgent(launcher, args, { env });
  const client = connectClient(proc);
  try {
    await check(client);
  } catch (error) {
    throw new Error(`${String(error)}\nstderr: ${proc.stderr()}`);
  } finally {
    client.close();
    proc.child.kill("SIGKILL");
    await proc.exited;
  }
}

export interface ServeCheckOptions {
  /** Arguments after `agent serve --port 0` (default: the faux model). */
  args?: string[];
  env?: Record<string, string>;
  /** Where the agent's home is on the host (default `sandbox.home`). */
  hostHome?: string;
  /** The session cwd as the agent sees it (default `sandbox.project`). */
  cwd?: string;
  /** The faux script as the agent sees it (default: the host path). */
  scriptPath?: (hostPath: string) => string;
}

/**
 * `agent serve`: `/healthz` answers, a WebSocket client completes a turn,
 * SIGTERM exits 0 and the session file holds the turn afterwards.
 */
export async function checkServeTurn(launcher: Launcher, sandbox: Sandbox, answer: string, options: ServeCheckOptions = {}): Promise<void> {
  const script = writeTurnScript(sandbox, answer, "serve-script.json");
  const server = await startServe(launcher, sandbox, {
    args: options.args ?? ["--model", "faux/script"],
    env: { ACP_EDGE_FAUX_SCRIPT: options.scriptPath ? options.scriptPath(script) : script, ...(options.env ?? {}) },
  });
  try {
    const health = await fetch(`${server.url.replace("0.0.0.0", "127.0.0.1")}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    const client = connectWs(`${server.wsUrl.replace("0.0.0.0", "127.0.0.1")}/acp`, server.token);
    await initialize(client);
    const { sessionId } = await client.agent.request(acp.methods.agent.session.new, { cwd: options.cwd ?? sandbox.project, mcpServers: [] });
    const prompt = `remember me ${answer}`;
    const response = await client.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: prompt }] });
    expect(response.stopReason).toBe("end_turn");
    expect(agentText(client.updates(sessionId))).toBe(answer);
    client.close();
    expect(await server.stop("SIGTERM")).toBe(0);
    const files = filesUnder(join(options.hostHome ?? sandbox.home, "sessions")).filter((f) => f.endsWith(".jsonl"));
    expect(files.some((file) => readFileSync(file, "utf8").includes(prompt))).toBe(true);
  } catch (error) {
    throw new Error(`${String(error)}\nstderr: ${server.proc.stderr()}`);
  } finally {
    server.proc.child.kill("SIGKILL");
  }
}

/** `acp-edge demo` in `cwd`: a real `read` through the agent with the scripted model. */
export async function checkDemo(launcher: Launcher, sandbox: Sandbox, cwd: string): Promise<void> {
  const result = await runAgentCommand(launcher, ["demo"], { cwd, env: { ACP_EDGE_HOME: sandbox.home }, timeoutMs: 60_000 });
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
  expect(result.stdout).toContain("I read ");
}

/** `--version` prints the package's name and version. */
export async function checkVersion(launcher: Launcher, sandbox: Sandbox): Promise<void> {
  const version = JSON.parse(readFileSync(join(import.meta.dir, "../../package.json"), "utf8")).version;
  const result = await runAgentCommand(launcher, ["--version"], { env: { ACP_EDGE_HOME: sandbox.home } });
  expect(result.code).toBe(0);
  expect(result.stdout.trim()).toBe(`acp-edge ${version}`);
}

function filesUnder(directory: string): string[] {
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const path = join(directory, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}
