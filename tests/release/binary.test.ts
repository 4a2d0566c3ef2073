/**
 * `npm run build:binary` → release/acp-edge (Bun's --compile): `--version`,
 * `agent stdio` and `agent serve` from the binary alone, outside the project;
 * a confined command's way to an allowed host through the binary's own
 * forwarder command.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { copyFileSync, chmodSync, existsSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { makeSandbox, ROOT, runAgentCommand, type Launcher, type Sandbox } from "../helpers/agent-process.ts";
import { checkServeTurn, checkStdioTurn, checkVersion } from "../helpers/artifact-checks.ts";
import { checkFetchHtml } from "../helpers/artifact-fetch.ts";
import { checkLoginRelaunch } from "../helpers/login-relaunch.ts";
import { startScenario, toolText } from "../helpers/scenario.ts";

let sandbox: Sandbox;
let binary: Launcher;

beforeAll(() => {
  const built = spawnSync("npm", ["run", "--silent", "build:binary"], { cwd: ROOT, encoding: "utf8" });
  if (built.status !== 0) throw new Error(`npm run build:binary failed: ${built.stderr}`);
  sandbox = makeSandbox();
  const copy = join(sandbox.root, "acp-edge");
  copyFileSync(join(ROOT, "release", "acp-edge"), copy);
  chmodSync(copy, 0o755);
  binary = { command: copy, args: [], cwd: sandbox.project };
}, 120_000);

afterAll(() => sandbox.cleanup());

describe("release/acp-edge (compiled with bun)", () => {
  test("--version", async () => {
    await checkVersion(binary, sandbox);
  });

  test("agent stdio: initialize and one turn", async () => {
    await checkStdioTurn(binary, sandbox, "the binary answers");
  });

  test("the fetch tool converts an HTML page on its worker thread", async () => {
    await checkFetchHtml(binary, sandbox);
  });

  test("both terminal-login command lines the agent gives a client run its login", async () => {
    await checkLoginRelaunch(binary, sandbox);
  });

  test("started in a hostile project: its bunfig.toml preload never runs and its .env sets nothing", async () => {
    writeFileSync(join(sandbox.project, "bunfig.toml"), 'preload = ["./preload.js"]\n');
    writeFileSync(join(sandbox.project, "preload.js"), 'require("node:fs").writeFileSync("preload-ran", "yes");\n');
    writeFileSync(join(sandbox.project, ".env"), "ANTHROPIC_API_KEY=sk-ant-from-a-project-dotenv-0000\n");
    const result = await runAgentCommand(binary, ["models"], { cwd: sandbox.project, env: { ACP_EDGE_HOME: sandbox.home } });
    expect(result.code).toBe(0);
    expect(existsSync(join(sandbox.project, "preload-ran"))).toBe(false);
    for (const line of result.stdout.split("\n").filter((l) => l.startsWith("anthropic/"))) expect(line).toContain("no — run `acp-edge login");
  });

  test("sandbox.allowHosts: a confined command reaches the allowed host through the binary's own forwarder, and not another", async () => {
    const hits: string[] = [];
    const server = createServer((request, response) => {
      hits.push(request.url ?? "");
      response.writeHead(200, { connection: "close" });
      response.end(`hello from allowed ${request.url}\n`);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    const port = (server.address() as { port: number }).port;
    const s = await startScenario(binary, {
      script: [{ toolCalls: [{ id: "net", name: "bash", input: { command: `curl -sS --max-time 20 http://127.0.0.1:${port}/binary; curl -sS --max-time 20 http://127.0.0.1:${port + 1}/other` } }] }, { text: "done" }],
      args: ["--approval-mode", "auto"],
      settings: { sandbox: { allowHosts: [`127.0.0.1:${port}`] } },
    });
    try {
      expect((await s.prompt("go")).stopReason).toBe("end_turn");
      expect(toolText(s.updates(), "net")).toContain("hello from allowed /binary");
      expect(toolText(s.updates(), "net")).toContain(`127.0.0.1:${port + 1} is not in sandbox.allowHosts`);
      expect(hits).toEqual(["/binary"]);
    } finally {
      s.close();
      server.close();
    }
  }, 60_000);

  test("agent serve: /healthz, a WebSocket turn, SIGTERM exits 0, session kept", async () => {
    await checkServeTurn(binary, sandbox, "the binary serves");
  });
});
