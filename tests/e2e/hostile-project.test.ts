/**
 * A hostile repository gets nothing: the project of tests/helpers/hostile-project.ts
 * (links to /proc/self/environ, /dev/zero and outside files and folders,
 * FIFOs, 1 GB sparse files, dangling links, loops and deep nesting at every
 * name the agent reads on its own), driven as an editor drives the agent —
 * `session/new`, the commands it announces, a prompt whose tools search the
 * project, a prompt template, a Claude Code command that names files outside
 * and a skill the model loads, and `session/load` in a new process — on each
 * runtime over stdio and over `agent serve`'s WebSocket `/acp`, against the
 * fake model server. Every byte a client received, every model request
 * body, every session file and the agent's stderr are searched for the
 * markers planted outside the project and in the environment; the agent's
 * peak memory is checked; the session keeps working. Project settings that
 * cannot be read safely refuse `session/new` with the reason and nothing of
 * the file.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync, symlinkSync, truncateSync, writeFileSync, mkdirSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { agentText, connectClient, initialize, acp, type TestClient } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES, spawnAgent, type AgentProcess, type RuntimeName, type Sandbox } from "../helpers/agent-process.ts";
import { rpcError, waitFor } from "../helpers/expect-error.ts";
import { startFakeModelServer, type FakeModelServer } from "../helpers/fake-model-server.ts";
import { filesUnder, leakedMarkers, plantHostileProject, type HostileProject } from "../helpers/hostile-project.ts";
import { peakMemory } from "../helpers/processes.ts";
import { connectWs, startServe, TOKEN } from "../helpers/serve-process.ts";

const { methods } = acp;
/** Peak memory the hostile files may add: reading /dev/zero or the sparse file whole took 500 MB to 1 GB. */
const MEMORY_HEADROOM = 96 * 1024 * 1024;

/** An agent over stdio in the hostile cwd, with every byte of its stdout kept. */
function spawnHostileAgent(runtime: RuntimeName, sandbox: Sandbox, hostile: HostileProject, server: FakeModelServer) {
  const proc = spawnAgent(runtime, ["agent", "stdio", "--model", "anthropic/claude-sonnet-4-5"], {
    cwd: hostile.cwd,
    env: { ACP_EDGE_HOME: sandbox.home, ANTHROPIC_BASE_URL: server.url, ...hostile.env },
  });
  const [forClient, forTap] = proc.stdout.tee();
  let bytes = "";
  const decoder = new TextDecoder();
  void (async () => {
    for await (const chunk of forTap as unknown as AsyncIterable<Uint8Array>) bytes += decoder.decode(chunk, { stream: true });
  })();
  const tapped: AgentProcess = { ...proc, stdout: forClient };
  return { proc, client: connectClient(tapped), stdout: () => bytes };
}

/** How many times `needle` occurs in `text`. */
const count = (text: string, needle: string) => text.split(needle).length - 1;

/** Waits for the commands a client is told after `session/new` or `session/load` (they follow the notices). */
async function announced(client: TestClient, sessionId: string) {
  await waitFor(() => client.updates(sessionId).some((u) => u.sessionUpdate === "available_commands_update"), 30_000, "available_commands_update");
  const update = client.updates(sessionId).find((u) => u.sessionUpdate === "available_commands_update");
  return update?.sessionUpdate === "available_commands_update" ? update.availableCommands : [];
}

/** What `session/new` must tell about the hostile project: each file once, with its reason. */
function expectNotices(text: string, sandbox: Sandbox, hostile: HostileProject): void {
  const [homeAgents, homeClaude, repoAgents, cwdAgents, cwdAgentsUpper, cwdClaude, cwdClaudeUpper] = hostile.contextFiles;
  const reasons: Array<[string | undefined, string]> = [
    [homeAgents, "it is not a regular file (a FIFO)"],
    [homeClaude, "it leads outside the acp-edge home"],
    [repoAgents, "it leads outside the session's folders"],
    [cwdAgents, "it leads outside the session's folders"],
    [cwdAgentsUpper, "it leads outside the session's folders"],
    [cwdClaude, "it is not a regular file (a FIFO)"],
  ];
  for (const [path, why] of reasons) expect(count(text, `Context file ${path} was not read: ${why}.`), path).toBe(1);
  // A 1 GB file is read up to the budget, never further, and said so once.
  expect(count(text, `Context file ${cwdClaudeUpper} was read in part: it is larger than 64 KiB; only its first 64 KiB were read.`)).toBe(1);
  const prompts = join(hostile.cwd, ".acp-edge", "prompts");
  const templates: Array<[string, string]> = [
    [join(prompts, "evil.md"), "it leads outside the session's folders"],
    [join(prompts, "environ.md"), "it leads outside the session's folders"],
    [join(prompts, "zero.md"), "it leads outside the session's folders"],
    [join(prompts, "fifo.md"), "it is not a regular file (a FIFO)"],
    [join(prompts, "big.md"), "it is larger than 64 KiB"],
    [join(prompts, "dangling.md"), "it is a symbolic link to nothing"],
    [join(prompts, "outdir"), "it leads outside the session's folders"],
    [join(prompts, "a", "b", "c", "d", "e"), "it is nested deeper than the folders that are read"],
    [join(sandbox.home, "prompts"), "it leads outside the acp-edge home"],
  ];
  for (const [path, why] of templates) expect(count(text, `Prompt template ${path} was not read: ${why}.`), path).toBe(1);
  for (const [what, why] of hostile.setupRefusals) expect(count(text, `${what}: ${why}.`), what).toBe(1);
}

/** The commands offered: the good template, nothing from outside, nothing hostile. */
function expectCommands(commands: acp.AvailableCommand[]): void {
  const names = commands.map((c) => c.name);
  expect(commands.find((c) => c.name === "good")?.description).toBe("A legitimate template");
  for (const hostile of ["evil", "environ", "zero", "fifo", "big", "dangling", "outdir:evil", "a:b:c:d:e:deep", "bomb", "yaml", "linked-out"]) expect(names).not.toContain(hostile);
  expect(commands.find((c) => c.name === "audit")).toMatchObject({ description: "Audit the project", input: { hint: "[area] [depth]" } });
  expect(commands.find((c) => c.name === "legit-skill")?.description).toBe("A legitimate skill for LEGIT work.");
  expect(names.filter((n) => n === "compact")).toHaveLength(1);
}

/** Nothing planted outside, in the environment or the key reaches anything the agent wrote. */
function expectNoLeaks(places: Record<string, string>, hostile: HostileProject): void {
  for (const [where, text] of Object.entries(places)) expect(leakedMarkers(text, hostile.markers), where).toEqual([]);
}

for (const runtime of RUNTIMES) {
  describe(`${runtime}: a hostile repository over stdio`, () => {
    let sandbox: Sandbox;
    let hostile: HostileProject;
    let server: FakeModelServer;

    beforeAll(async () => {
      sandbox = makeSandbox();
      hostile = plantHostileProject(sandbox);
      writeFileSync(join(sandbox.home, "settings.json"), JSON.stringify({ maxRetries: 0 }));
      server = await startFakeModelServer();
    });
    afterAll(async () => {
      await server.close();
      sandbox.cleanup();
    });

    test("session/new, commands, searches, a template and session/load: nothing leaks, memory stays bounded, the session works", async () => {
      const first = spawnHostileAgent(runtime, sandbox, hostile, server);
      let second: ReturnType<typeof spawnHostileAgent> | undefined;
      try {
        await initialize(first.client);
        const baseline = peakMemory(first.proc.child.pid!);
        // A FIFO at CLAUDE.md (cwd and home) must not stall this.
        const { sessionId } = await first.client.agent.request(methods.agent.session.new, { cwd: hostile.cwd, mcpServers: [] });
        expectCommands(await announced(first.client, sessionId));
        expectNotices(agentText(first.client.updates(sessionId)), sandbox, hostile);

        // A prompt whose tools walk the project (ignore files at every level are hostile), then an answer.
        server.push(
          { toolCalls: [{ id: "f1", name: "find", input: { pattern: "*" } }, { id: "g1", name: "grep", input: { pattern: "LEGIT" } }] },
          { text: "searched the project" },
        );
        const searched = await first.client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "look around" }] });
        expect(searched.stopReason).toBe("end_turn");
        expect(agentText(first.client.updates(sessionId))).toContain("searched the project");
        const system = JSON.stringify(server.requests.at(-1)?.body?.system);
        expect(system).toContain("LEGIT-CONTEXT-RULE: the deploy key is [redacted]");
        const toolResults = JSON.stringify(server.requests.at(-1)?.body?.messages);
        expect(toolResults).toContain("LEGIT-SOURCE");
        expect(toolResults).toContain("LEGIT-DEEP");
        for (const file of hostile.ignoreFiles) expect(toolResults, file).toContain(`The ignore rules in ${file} were not applied`);

        // A prompt template reaches the model; then a plain prompt still answers.
        server.push({ text: "templated" }, { text: "still working" });
        expect((await first.client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "/good now" }] })).stopReason).toBe("end_turn");
        expect(JSON.stringify(server.requests.at(-1)?.body?.messages)).toContain("Say LEGIT-TEMPLATE and now (key [redacted])");
        expect((await first.client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "still there?" }] })).stopReason).toBe("end_turn");
        // A Claude Code command naming files outside with @ and a shell line: notes, nothing read or run.
        server.push({ text: "audited" });
        expect((await first.client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "/audit deep" }] })).stopReason).toBe("end_turn");
        const audited = JSON.stringify(server.requests.at(-1)?.body?.messages);
        expect(audited).toContain("Audit LEGIT-COMMAND deep with @");
        expect(audited).toContain(`[linked resource file:///proc/self/environ: it leads outside the session's directories, so it was not read]`);
        expect(audited).toContain("[Not run: acp-edge does not run the shell commands");
        // The model sees the skill's name, not its body, until it loads it.
        expect(JSON.stringify(server.requests.at(-1)?.body?.system)).toContain("- legit-skill: A legitimate skill for LEGIT work.");
        expect(JSON.stringify(server.requests.at(-1)?.body?.system)).not.toContain("LEGIT-SKILL-BODY");
        server.push({ toolCalls: [{ id: "s1", name: "skill", input: { name: "legit-skill" } }] }, { text: "skilled" });
        expect((await first.client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "use the skill" }] })).stopReason).toBe("end_turn");
        expect(JSON.stringify(server.requests.at(-1)?.body?.messages)).toContain("LEGIT-SKILL-BODY");
        expect(agentText(first.client.updates(sessionId))).toContain("still working");
        // Files that stay unreadable are told once per session, however often the turns read the context again.
        expectNotices(agentText(first.client.updates(sessionId)), sandbox, hostile);
        expect(peakMemory(first.proc.child.pid!) - baseline).toBeLessThan(MEMORY_HEADROOM);
        first.proc.child.stdin!.end();
        await first.proc.exited;

        // Another process loads the session from its file: the replay and the fresh notices leak nothing either.
        second = spawnHostileAgent(runtime, sandbox, hostile, server);
        await initialize(second.client);
        const loadBaseline = peakMemory(second.proc.child.pid!);
        await second.client.agent.request(methods.agent.session.load, { sessionId, cwd: hostile.cwd, mcpServers: [] });
        expectCommands(await announced(second.client, sessionId));
        server.push({ text: "loaded and answering" });
        expect((await second.client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "after load" }] })).stopReason).toBe("end_turn");
        expect(agentText(second.client.updates(sessionId))).toContain("loaded and answering");
        expect(peakMemory(second.proc.child.pid!) - loadBaseline).toBeLessThan(MEMORY_HEADROOM);
        second.proc.child.stdin!.end();
        await second.proc.exited;

        const sessionFiles = filesUnder(join(sandbox.home, "sessions"));
        expect(sessionFiles.length).toBeGreaterThan(0);
        expectNoLeaks(
          {
            "first client's bytes": first.stdout(),
            "second client's bytes": second.stdout(),
            "model requests": JSON.stringify(server.requests.map((r) => r.body)),
            "session files": sessionFiles.map((f) => f.text).join("\n"),
            "stderr": first.proc.stderr() + second.proc.stderr(),
          },
          hostile,
        );
      } finally {
        first.proc.child.kill("SIGKILL");
        second?.proc.child.kill("SIGKILL");
      }
    }, 180_000);

    test("project settings that cannot be read safely refuse session/new, naming the file and the reason only", async () => {
      const project = join(sandbox.root, `settings-${runtime}`);
      const settings = join(project, ".acp-edge", "settings.json");
      mkdirSync(join(project, ".acp-edge"), { recursive: true });
      const agent = spawnHostileAgent(runtime, sandbox, hostile, server);
      try {
        await initialize(agent.client);
        const cases: Array<[string, () => void, string]> = [
          ["a link to a file outside", () => symlinkSync(join(sandbox.root, "outside", "secret.md"), settings), "it leads outside the session's folders"],
          ["a link to /proc/self/environ", () => symlinkSync("/proc/self/environ", settings), "it leads outside the session's folders"],
          ["a link to /dev/zero", () => symlinkSync("/dev/zero", settings), "it leads outside the session's folders"],
          ["a FIFO", () => execFileSync("mkfifo", [settings]), "it is not a regular file (a FIFO)"],
          ["a 1 GB sparse file", () => (writeFileSync(settings, ""), truncateSync(settings, 1024 ** 3)), "it is larger than 256 KiB"],
          ["a dangling link", () => symlinkSync("nowhere.json", settings), "it is a symbolic link to nothing"],
          ["a folder", () => mkdirSync(settings), "it is not a regular file (a folder)"],
        ];
        for (const [name, plant, why] of cases) {
          rmSync(settings, { recursive: true, force: true });
          plant();
          const error = await rpcError(agent.client.agent.request(methods.agent.session.new, { cwd: project, mcpServers: [] }), -32603);
          expect(error.message, name).toBe(`Project settings cannot be used: ${settings} was not read: ${why}`);
        }
        // Fixed, the project opens.
        rmSync(settings, { recursive: true, force: true });
        writeFileSync(settings, JSON.stringify({ approvalMode: "read-only" }));
        const { modes } = await agent.client.agent.request(methods.agent.session.new, { cwd: project, mcpServers: [] });
        expect(modes?.currentModeId).toBe("read-only");
        agent.proc.child.stdin!.end();
        await agent.proc.exited;
        expectNoLeaks({ "client bytes": agent.stdout(), stderr: agent.proc.stderr() }, hostile);
      } finally {
        agent.proc.child.kill("SIGKILL");
      }
    }, 60_000);
  });

  describe(`${runtime}: a hostile repository over agent serve`, () => {
    test("WebSocket /acp: session/new, commands and a searching prompt leak nothing; memory stays bounded", async () => {
      const sandbox = makeSandbox();
      const hostile = plantHostileProject(sandbox);
      writeFileSync(join(sandbox.home, "settings.json"), JSON.stringify({ maxRetries: 0 }));
      const model = await startFakeModelServer([
        { toolCalls: [{ id: "f1", name: "find", input: { pattern: "*" } }, { id: "g1", name: "grep", input: { pattern: "LEGIT" } }] },
        { text: "served and searched" },
      ]);
      const server = await startServe(runtime, sandbox, {
        args: ["--model", "anthropic/claude-sonnet-4-5"],
        env: { ANTHROPIC_BASE_URL: model.url, ...hostile.env },
      });
      try {
        const client = connectWs(`${server.wsUrl}/acp`, TOKEN);
        await initialize(client);
        const baseline = peakMemory(server.proc.child.pid!);
        const { sessionId } = await client.agent.request(methods.agent.session.new, { cwd: hostile.cwd, mcpServers: [] });
        expectCommands(await announced(client, sessionId));
        expectNotices(agentText(client.updates(sessionId)), sandbox, hostile);
        const { stopReason } = await client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "look around" }] });
        expect(stopReason).toBe("end_turn");
        expect(agentText(client.updates(sessionId))).toContain("served and searched");
        expect(peakMemory(server.proc.child.pid!) - baseline).toBeLessThan(MEMORY_HEADROOM);
        client.close();
        expectNoLeaks(
          {
            "client messages": JSON.stringify(client.received),
            "model requests": JSON.stringify(model.requests.map((r) => r.body)),
            "session files": filesUnder(join(sandbox.home, "sessions")).map((f) => f.text).join("\n"),
            stderr: server.proc.stderr(),
          },
          hostile,
        );
      } finally {
        await server.stop("SIGKILL");
        await model.close();
        sandbox.cleanup();
      }
    }, 120_000);
  });
}
