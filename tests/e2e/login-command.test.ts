/**
 * `acp-edge login`, `logout` and `login --status` against hostile input, on
 * each runtime: keys refused, endpoints unreachable or wrong, unknown model
 * ids, standard input that ends early or carries odd bytes, an `auth.json`
 * that is corrupt, a symbolic link or a FIFO, a lock left by a dead process,
 * and a person who gives up or retries at the terminal. Whatever fails
 * stores nothing, changes no file, and never prints the key.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, lstatSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { hostIdentity } from "../../src/runtime/host/host-identity.ts";
import { agentCommand, makeSandbox, RUNTIMES, runAgentCommand, type RuntimeName, type Sandbox } from "../helpers/agent-process.ts";
import { startFakeModelServer, type FakeModelServer } from "../helpers/fake-model-server.ts";
import { startInPty } from "../helpers/pty-session.ts";

const KEY = "sk-ant-hostile-login-0123456789";

let fake: FakeModelServer;
let closedPort: number;
beforeAll(async () => {
  fake = await startFakeModelServer();
  // A port nobody listens on: bound once, then released.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  closedPort = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});
afterAll(async () => await fake.close());

describe.each(RUNTIMES)("login on %s", (runtime: RuntimeName) => {
  let sandbox: Sandbox;
  let authPath: string;
  beforeEach(() => {
    sandbox?.cleanup();
    sandbox = makeSandbox();
    authPath = join(sandbox.home, "auth.json");
  });
  afterAll(() => sandbox?.cleanup());

  const login = (args: string[], input: string | Uint8Array = `${KEY}\n`) =>
    runAgentCommand(runtime, ["login", ...args], { env: { ACP_EDGE_HOME: sandbox.home, ANTHROPIC_BASE_URL: fake.url }, input });
  const nothingStored = () => {
    expect(existsSync(authPath)).toBe(false);
    expect(existsSync(join(sandbox.home, "settings.json"))).toBe(false);
  };
  const neverShown = (result: { stdout: string; stderr: string }, key = KEY) => expect(result.stdout + result.stderr).not.toContain(key);

  test("a refused key: exit 1, the provider's reason, nothing stored", async () => {
    fake.push({ error: { status: 401, message: "invalid x-api-key" } });
    const result = await login(["--provider", "anthropic"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("The key was refused by anthropic");
    expect(result.stderr).toContain("invalid x-api-key");
    neverShown(result);
    nothingStored();
  });

  test("an endpoint that cannot be reached, one without the API, and an unknown model id", async () => {
    const unreachable = await login(["--provider", "team", "--base-url", `http://127.0.0.1:${closedPort}/v1`, "--model", "m1"]);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain("cannot be reached");
    const noApi = await login(["--provider", "team", "--base-url", fake.url, "--model", "m1"]);
    expect(noApi.code).toBe(1);
    expect(noApi.stderr).toContain("check the base URL");
    fake.push({ error: { status: 404, message: "The model `no-such-model` does not exist." } });
    const unknown = await login(["--provider", "team", "--base-url", `${fake.url}/v1`, "--model", "no-such-model"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('The model id "no-such-model" is unknown to team');
    for (const result of [unreachable, noApi, unknown]) neverShown(result);
    nothingStored();
  });

  test("an endpoint that needs no key is stored in settings.json only", async () => {
    fake.push({ text: "OK" });
    const result = await login(["--provider", "local", "--base-url", `${fake.url}/v1`, "--model", "qwen"], "");
    expect(result).toMatchObject({ code: 0 });
    expect(existsSync(authPath)).toBe(false);
    expect(JSON.parse(readFileSync(join(sandbox.home, "settings.json"), "utf8")).providers.local).toEqual({
      api: "openai-compatible",
      baseUrl: `${fake.url}/v1`,
      models: [{ id: "qwen" }],
    });
  });

  test("standard input that ends before a key, or that carries odd bytes, stores nothing and is never echoed", async () => {
    const empty = await login(["--provider", "anthropic"], "");
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("no key on standard input");
    const odd: Array<string | Uint8Array> = [
      "sk-ant-with\u0000nul-0123456789",
      "sk-ant-with\rcarriage-0123456789\n",
      "\u001b[31msk-ant-escape-0123456789\u001b[0m",
      "sk-ant-ключ-0123456789",
      "sk-ant with a space 0123456789",
      new Uint8Array([0x73, 0x6b, 0x2d, 0xff, 0xfe, 0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36]),
      `sk-${"a".repeat(5000)}`,
      "x".repeat(200_000),
    ];
    for (const input of odd) {
      const result = await login(["--provider", "anthropic", "--no-verify"], input);
      expect({ code: result.code, input: String(input).slice(0, 40) }).toEqual({ code: 2, input: String(input).slice(0, 40) });
      expect(result.stderr).toContain("nothing was saved");
      if (typeof input === "string") neverShown(result, input.trim().slice(0, 30));
    }
    nothingStored();
    const padded = await login(["--provider", "anthropic", "--no-verify"], `  ${KEY}  \r\n`);
    expect(padded.code).toBe(0);
    expect(JSON.parse(readFileSync(authPath, "utf8"))).toEqual({ anthropic: { type: "api_key", key: KEY } });
  }, 60_000);

  test("other entries and unknown fields are kept; the file ends up 0600 whatever it was", async () => {
    const other = { type: "api_key", key: "sk-openai-kept-0123456789", note: "written by hand" };
    writeFileSync(authPath, JSON.stringify({ openai: other }), { mode: 0o644 });
    const result = await login(["--provider", "anthropic", "--no-verify"]);
    expect(result.code).toBe(0);
    expect(JSON.parse(readFileSync(authPath, "utf8"))).toEqual({ openai: other, anthropic: { type: "api_key", key: KEY } });
    expect(statSync(authPath).mode & 0o777).toBe(0o600);
    neverShown(result);
  });

  test("a corrupt auth.json, a symbolic link, or a FIFO is refused and left exactly as it was", async () => {
    for (const corrupt of ["{not json", '{"anthropic": {"type": "oauth", "token": "x"}}', "[]", ""]) {
      writeFileSync(authPath, corrupt, { mode: 0o600 });
      const result = await login(["--provider", "anthropic", "--no-verify"]);
      expect({ corrupt, code: result.code }).toEqual({ corrupt, code: 2 });
      expect(result.stderr).toContain("nothing was changed");
      expect(readFileSync(authPath, "utf8")).toBe(corrupt);
    }
    rmSync(authPath);
    const elsewhere = sandbox.write("elsewhere.json", "{}");
    symlinkSync(elsewhere, authPath);
    const linked = await login(["--provider", "anthropic", "--no-verify"]);
    expect(linked.code).toBe(2);
    expect(linked.stderr).toContain("symbolic link");
    expect(readFileSync(elsewhere, "utf8")).toBe("{}");
    expect(readlinkSync(authPath)).toBe(elsewhere);
    rmSync(authPath);
    symlinkSync(join(sandbox.root, "missing.json"), authPath);
    expect((await login(["--provider", "anthropic", "--no-verify"])).code).toBe(2);
    expect(existsSync(join(sandbox.root, "missing.json"))).toBe(false);
    rmSync(authPath);
    spawnSync("mkfifo", [authPath]);
    // A FIFO would block a reader forever: refused without opening it, by login, logout and the agent alike.
    for (const args of [["login", "--provider", "anthropic", "--no-verify"], ["logout"], ["models"]]) {
      const result = await runAgentCommand(runtime, args, { env: { ACP_EDGE_HOME: sandbox.home }, input: `${KEY}\n`, timeoutMs: 20_000 });
      expect({ args, code: result.code }).toEqual({ args, code: 2 });
      expect(result.stderr).toContain("not a regular file");
    }
    expect(lstatSync(authPath).isFIFO()).toBe(true);
  }, 60_000);

  test("a lock left by a dead process is taken over; a live holder's lock is waited for", async () => {
    const dead = spawnSync(process.execPath, ["-e", "0"]).pid!;
    const lock = `${authPath}.lock`;
    writeFileSync(lock, JSON.stringify({ pid: dead, host: hostIdentity(), token: "dead" }));
    const taken = await login(["--provider", "anthropic", "--no-verify"]);
    expect(taken.code).toBe(0);
    expect(existsSync(lock)).toBe(false);

    writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostIdentity(), token: "alive" }));
    const { command, args } = agentCommand(runtime, ["login", "--provider", "openai", "--no-verify", "--log-level", "info"]);
    const child = spawn(command, args, { env: { ...process.env, ACP_EDGE_HOME: sandbox.home }, stdio: ["pipe", "pipe", "pipe"] });
    child.stdin.end("sk-openai-after-wait-0123456789\n");
    let stderr = "";
    const waiting = new Promise<void>((resolve) =>
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk;
        if (stderr.includes("waiting for process")) resolve();
      }),
    );
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    await Promise.race([waiting, exited]);
    expect(stderr).toContain(`waiting for process ${process.pid}`);
    rmSync(lock);
    expect(await exited).toBe(0);
    expect(Object.keys(JSON.parse(readFileSync(authPath, "utf8"))).sort()).toEqual(["anthropic", "openai"]);
  }, 60_000);

  test("a key stored for vertex counts for nothing: --status names Google's credentials, and none without them", async () => {
    const vertexKey = "vertex-stored-key-0123456789";
    writeFileSync(authPath, JSON.stringify({ vertex: { type: "api_key", key: vertexKey } }), { mode: 0o600 });
    // No Application Default Credentials: no named file, an empty gcloud folder, not on Google Cloud.
    const env = { ACP_EDGE_HOME: sandbox.home, GOOGLE_APPLICATION_CREDENTIALS: "", CLOUDSDK_CONFIG: sandbox.root };
    const without = await runAgentCommand(runtime, ["login", "--status"], { env });
    expect(without.code).toBe(0);
    expect(without.stdout).toMatch(/vertex\s+none — /);
    const account = join(sandbox.root, "service-account.json");
    writeFileSync(account, "{}");
    const withFile = await runAgentCommand(runtime, ["login", "--status"], { env: { ...env, GOOGLE_APPLICATION_CREDENTIALS: account } });
    expect(withFile.stdout).toMatch(/vertex\s+Google Application Default Credentials/);
    for (const run of [without, withFile]) expect(run.stdout + run.stderr).not.toContain(vertexKey);
  });

  test("logout removes one provider's key or all of them; --status says where keys come from, never a key", async () => {
    writeFileSync(authPath, JSON.stringify({ anthropic: { type: "api_key", key: KEY }, team: { type: "api_key", key: "sk-team-0123456789" } }), { mode: 0o600 });
    const env = { ACP_EDGE_HOME: sandbox.home, OPENAI_API_KEY: "sk-openai-env-0123456789", ANTHROPIC_API_KEY: "sk-ant-env-shadowed-0123456789" };
    const status = await runAgentCommand(runtime, ["login", "--status"], { env });
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/anthropic\s+auth\.json .*ANTHROPIC_API_KEY is also set/);
    expect(status.stdout).toMatch(/openai\s+environment \(OPENAI_API_KEY\)/);
    for (const key of [KEY, env.OPENAI_API_KEY, env.ANTHROPIC_API_KEY]) expect(status.stdout + status.stderr).not.toContain(key);
    const one = await runAgentCommand(runtime, ["logout", "anthropic"], { env });
    expect(one.stdout).toContain("Removed the stored key of anthropic");
    expect(one.stdout).toContain("ANTHROPIC_API_KEY is still set");
    expect(Object.keys(JSON.parse(readFileSync(authPath, "utf8")))).toEqual(["team"]);
    const all = await runAgentCommand(runtime, ["logout"], { env });
    expect(all.stdout).toContain("Removed the stored key of team");
    expect(JSON.parse(readFileSync(authPath, "utf8"))).toEqual({});
    const none = await runAgentCommand(runtime, ["logout", "openai"], { env });
    expect(none).toMatchObject({ code: 0 });
    expect(none.stdout).toContain("No stored key for openai");
  });

  test("at the terminal: a refused key is asked again, Ctrl-C and an early end of input store nothing", async () => {
    const env = { ACP_EDGE_HOME: sandbox.home, ANTHROPIC_BASE_URL: fake.url };
    const { command, args } = agentCommand(runtime, ["login", "--provider", "anthropic"]);
    fake.push({ error: { status: 401, message: "invalid x-api-key" } }, { text: "OK" });
    const retry = startInPty(command, args, { env });
    await retry.waitFor("API key for anthropic: ");
    retry.type("sk-ant-first-wrong-0123456789\r");
    await retry.waitFor("Try again? [Y/n] ");
    retry.type("\r");
    await retry.waitFor("API key for anthropic: ", 30_000, retry.output().lastIndexOf("Try again"));
    retry.type(`${KEY}\r`);
    expect(await retry.exited).toBe(0);
    expect(retry.output()).toContain("The key was refused by anthropic");
    expect(retry.output()).not.toContain("sk-ant-first-wrong");
    expect(retry.output()).not.toContain(KEY);
    expect(JSON.parse(readFileSync(authPath, "utf8"))).toEqual({ anthropic: { type: "api_key", key: KEY } });

    rmSync(authPath);
    const interrupted = startInPty(command, args, { env });
    await interrupted.waitFor("API key for anthropic: ");
    interrupted.type("sk-ant-half-typed\u0003");
    expect(await interrupted.exited).toBe(1);
    expect(interrupted.output()).toContain("login cancelled; nothing was saved");
    const dialogue = agentCommand(runtime, ["login"]);
    const ended = startInPty(dialogue.command, dialogue.args, { env });
    await ended.waitFor("Choose [1]: ");
    ended.endInput();
    expect(await ended.exited).toBe(1);
    expect(existsSync(authPath)).toBe(false);
  }, 90_000);
});

test("concurrent logins on every runtime at once: every key is kept, the file is never torn", async () => {
  const sandbox = makeSandbox();
  try {
    const names = RUNTIMES.flatMap((runtime) => [0, 1, 2].map((i) => ({ runtime, name: `${runtime}-${i}` })));
    const results = await Promise.all(
      names.map(({ runtime, name }) =>
        runAgentCommand(runtime, ["login", "--provider", name, "--base-url", `http://127.0.0.1:${closedPort}/v1`, "--model", "m", "--no-verify"], {
          env: { ACP_EDGE_HOME: sandbox.home },
          input: `sk-${name}-0123456789\n`,
          timeoutMs: 60_000,
        }),
      ),
    );
    expect(results.map((r) => r.code)).toEqual(names.map(() => 0));
    const auth = JSON.parse(readFileSync(join(sandbox.home, "auth.json"), "utf8"));
    expect(Object.keys(auth).sort()).toEqual(names.map((n) => n.name).sort());
    for (const { name } of names) expect(auth[name]).toEqual({ type: "api_key", key: `sk-${name}-0123456789` });
    const settings = JSON.parse(readFileSync(join(sandbox.home, "settings.json"), "utf8"));
    expect(Object.keys(settings.providers).sort()).toEqual(names.map((n) => n.name).sort());
    expect(existsSync(join(sandbox.home, "auth.json.lock"))).toBe(false);
  } finally {
    sandbox.cleanup();
  }
}, 120_000);
