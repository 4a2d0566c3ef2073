/**
 * Logging in from the editor, end to end, on each runtime: a fresh HOME, an
 * agent with no credentials, a client that advertises terminal auth. The
 * client runs the terminal method in a real pseudo-terminal and a person's
 * keystrokes answer its questions (an OpenAI-compatible endpoint: the fake
 * model server); the same running agent then opens a session and answers a
 * prompt with the new key. Both readings of the method's `args` (appended to
 * the agent's command line, or in place of its arguments) log in, and so
 * does the older `_meta["terminal-auth"]` command line.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { agentText, connectClient, acp, type TestClient } from "../helpers/acp-client.ts";
import { agentCommand, makeSandbox, RUNTIMES, spawnAgent, type AgentProcess, type RuntimeName, type Sandbox } from "../helpers/agent-process.ts";
import { rpcError } from "../helpers/expect-error.ts";
import { startFakeModelServer, type FakeModelServer } from "../helpers/fake-model-server.ts";
import { startInPty } from "../helpers/pty-session.ts";

const { methods } = acp;
const KEY = "sk-fresh-login-key-0123456789";

type TerminalMethod = { type: "terminal"; id: string; name: string; description?: string; args?: string[]; env?: Record<string, string> };
type LegacyMeta = { command: string; args: string[]; label: string; env?: Record<string, string> };

let server: FakeModelServer;
beforeAll(async () => {
  server = await startFakeModelServer([], { reply: () => ({ text: "answered with the new key" }) });
});
afterAll(async () => await server.close());

/** An agent's environment on a machine where acp-edge never ran: HOME is an empty folder, no ACP_EDGE_HOME. */
function freshEnv(sandbox: Sandbox): Record<string, string> {
  const home = join(sandbox.root, "fresh-home");
  mkdirSync(home, { recursive: true });
  // Deno's compile cache is a cache, not acp-edge's state: kept so a cold HOME does not mean a cold compiler.
  return { HOME: home, DENO_DIR: process.env.DENO_DIR ?? join(homedir(), ".cache", "deno") };
}

/** Answers the login's questions for a new OpenAI-compatible endpoint named `name`, typing the key last. */
async function typeEndpointLogin(pty: ReturnType<typeof startInPty>, name: string, key: string): Promise<void> {
  await pty.waitFor("Choose [1]: ");
  const options = pty.output().match(/(\d+)\) Another OpenAI-compatible endpoint/);
  pty.type(`${options?.[1]}\r`);
  await pty.waitFor("Base URL");
  pty.type(`${server.url}/v1\r`);
  await pty.waitFor("Model id: ");
  pty.type("fake-model\r");
  await pty.waitFor("Name for this provider");
  pty.type(`${name}\r`);
  await pty.waitFor(`API key for ${name}`);
  pty.type(`${key}\r`);
}

describe.each(RUNTIMES)("terminal login on %s", (runtime: RuntimeName) => {
  let sandbox: Sandbox;
  let agent: AgentProcess;
  let client: TestClient;
  let env: Record<string, string>;

  beforeAll(() => {
    sandbox = makeSandbox();
    env = freshEnv(sandbox);
  });
  afterEach(() => {
    client?.close();
    agent?.child.kill("SIGKILL");
  });
  afterAll(() => sandbox.cleanup());

  async function startAgent(capabilities: Record<string, unknown>): Promise<acp.InitializeResponse> {
    agent = spawnAgent(runtime, ["agent", "stdio"], { env, cwd: sandbox.project });
    client = connectClient(agent);
    return await client.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: capabilities as acp.ClientCapabilities });
  }

  async function prompt(): Promise<string> {
    const { sessionId } = await client.agent.request(methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] });
    const response = await client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hello" }] });
    expect(response.stopReason).toBe("end_turn");
    return agentText(client.updates(sessionId));
  }

  test("the terminal method, appended to the agent's command line, logs in; the running agent then answers with the new key", async () => {
    const init = await startAgent({ auth: { terminal: true } });
    const method = init.authMethods?.find((m) => (m as { type?: string }).type === "terminal") as TerminalMethod | undefined;
    expect(method).toMatchObject({ id: "acp-edge-login", args: ["login"] });
    expect(method?.env).toBeUndefined(); // the default home: nothing to pass
    expect(init.authMethods?.map((m) => m.id)).toEqual(["acp-edge-login", "acp-edge-credentials"]);
    // No path of this machine in what a client shows.
    expect(JSON.stringify(init.authMethods)).not.toContain(env.HOME!);
    expect(JSON.stringify(init.authMethods)).not.toContain(sandbox.root);

    const refused = await rpcError(client.agent.request(methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] }), -32000);
    expect(refused.message).toContain("acp-edge login");
    expect(refused.message).not.toContain(env.HOME!);

    // The client runs its configured command with the method's args appended.
    const { command, args } = agentCommand(runtime, ["agent", "stdio", ...method!.args!]);
    const pty = startInPty(command, args, { env, cwd: sandbox.project });
    await typeEndpointLogin(pty, "gateway", KEY);
    expect(await pty.exited).toBe(0);
    expect(pty.output()).toContain("Logged in");
    expect(pty.output()).not.toContain(KEY); // typed without echo, and never printed

    const auth = join(env.HOME!, ".acp-edge", "auth.json");
    expect(statSync(auth).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(auth, "utf8"))).toEqual({ gateway: { type: "api_key", key: KEY } });

    // The same process, no restart.
    const before = server.requests.length;
    expect(await prompt()).toBe("answered with the new key");
    const used = server.requests.slice(before).find((r) => r.path === "/v1/chat/completions");
    expect(used?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(used?.body.model).toBe("fake-model");
  }, 120_000);

  test("the method's args in place of the agent's arguments log in too, and `authenticate` then succeeds", async () => {
    const secondHome = join(sandbox.root, "second-home");
    mkdirSync(secondHome, { recursive: true });
    env = { ...env, HOME: secondHome };
    const init = await startAgent({ auth: { terminal: true } });
    const method = init.authMethods?.find((m) => m.id === "acp-edge-login") as TerminalMethod;
    const refused = await rpcError(client.agent.request(methods.agent.authenticate, { methodId: "acp-edge-credentials" }), -32000);
    expect(refused.message).toContain("No authenticated model");
    const { command, args } = agentCommand(runtime, method.args!);
    const pty = startInPty(command, args, { env, cwd: sandbox.project });
    await typeEndpointLogin(pty, "second", "sk-second-key-abcdefgh");
    expect(await pty.exited).toBe(0);
    expect(await client.agent.request(methods.agent.authenticate, { methodId: "acp-edge-credentials" })).toEqual({});
    const before = server.requests.length;
    expect(await prompt()).toBe("answered with the new key");
    expect(server.requests.slice(before).at(-1)?.headers.authorization).toBe("Bearer sk-second-key-abcdefgh");
  }, 120_000);

  test("a client of the older convention runs the command line of _meta[\"terminal-auth\"] and logs in", async () => {
    const legacyHome = join(sandbox.root, "legacy-home");
    mkdirSync(legacyHome, { recursive: true });
    env = { ...env, HOME: legacyHome };
    const init = await startAgent({ _meta: { "terminal-auth": true, terminal_output: true } });
    expect(init.authMethods).toHaveLength(1);
    const method = init.authMethods![0]!;
    expect((method as { type?: string }).type).toBeUndefined(); // the agent method, as those clients expect
    const meta = (method._meta as Record<string, LegacyMeta>)["terminal-auth"]!;
    expect(meta.label).toBe("acp-edge login");
    expect(meta.args.at(-1)).toBe("login");
    expect(method.description).not.toContain(legacyHome);
    const pty = startInPty(meta.command, meta.args, { env, cwd: sandbox.project });
    await typeEndpointLogin(pty, "legacy", "sk-legacy-key-abcdefgh");
    expect(await pty.exited).toBe(0);
    expect(await prompt()).toBe("answered with the new key");
  }, 120_000);

  test("an agent started with its own home passes it to the login, which stores the key there", async () => {
    const own = join(sandbox.root, "own-home");
    agent = spawnAgent(runtime, ["agent", "stdio", "--home", own, "--approval-mode", "yolo"], { env, cwd: sandbox.project });
    client = connectClient(agent);
    const init = await client.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: { auth: { terminal: true } } });
    const method = init.authMethods?.find((m) => m.id === "acp-edge-login") as TerminalMethod;
    expect(method.env).toEqual({ ACP_EDGE_HOME: own });
    // In place of the arguments (the --home flag is lost), with the method's env: the login finds the same home.
    const { command, args } = agentCommand(runtime, method.args!);
    const pty = startInPty(command, args, { env: { ...env, ...method.env }, cwd: sandbox.project });
    await typeEndpointLogin(pty, "ownhome", "sk-own-home-key-abcdefgh");
    expect(await pty.exited).toBe(0);
    expect(Object.keys(JSON.parse(readFileSync(join(own, "auth.json"), "utf8")))).toEqual(["ownhome"]);
    expect(await prompt()).toBe("answered with the new key");
  }, 120_000);
});
