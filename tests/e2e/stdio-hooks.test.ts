/**
 * A Claude Code user's hooks (`~/.claude/settings.json`) running in acp-edge,
 * over stdio on each runtime against the fake model server: a PreToolUse
 * guard that exits 2 on `rm -rf` stops the command and the model reads why;
 * PostToolUse on `Write|Edit` sees the written file; UserPromptSubmit and
 * SessionStart output reaches the model and a UserPromptSubmit block refuses
 * the prompt; a Stop block sends the model on; every hook gets Claude Code's
 * JSON fields. And hostile hooks: one past its timeout, one that forks a
 * sleeping child and exits, one printing megabytes, one printing broken
 * JSON, matchers that are costly or unusable regexes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentText, acp, type TestClient } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES, type Sandbox } from "../helpers/agent-process.ts";
import { startAgent, type RunningAgent } from "../helpers/session-agent.ts";
import { processGone } from "../helpers/processes.ts";
import { waitFor } from "../helpers/expect-error.ts";
import { startFakeModelServer, type FakeModelServer } from "../helpers/fake-model-server.ts";
import { group, loggedInputs, logInput, script, writeHooks } from "../helpers/hook-scripts.ts";

for (const runtime of RUNTIMES) {
  describe(`${runtime}: the user's Claude Code hooks`, () => {
    let sandbox: Sandbox;
    let server: FakeModelServer;
    let agent: RunningAgent;
    let client: TestClient;
    let sessionId: string;
    let log: string;
    let state: string;

    beforeAll(async () => {
      sandbox = makeSandbox();
      const userHome = join(sandbox.root, "user");
      const scripts = join(userHome, "hook-scripts");
      log = join(sandbox.root, "hook-log");
      state = join(sandbox.root, "hook-state");
      mkdirSync(log, { recursive: true });
      mkdirSync(state, { recursive: true });
      const logger = script(scripts, "log.sh", logInput(log));
      const guard = script(scripts, "guard.sh", `if cat | grep -q 'rm -rf'; then echo 'rm -rf is forbidden here GUARD-MARKER' >&2; exit 2; fi`);
      const prompt = script(scripts, "prompt.sh", `if cat | grep -q forbidden-word; then echo 'no forbidden words PROMPT-BLOCK' >&2; exit 2; fi; echo 'TICKET-1234 CONTEXT-MARKER'`);
      const started = script(scripts, "start.sh", `cat >/dev/null; echo 'SESSION-START-CONTEXT'`);
      const stop = script(scripts, "stop.sh", `${logInput(log)}; if [ -f '${state}/stop-once' ]; then rm '${state}/stop-once'; echo 'keep going STOP-FEEDBACK' >&2; exit 2; fi`);
      const slow = script(scripts, "slow.sh", `echo $$ > '${state}/slow.pid'; sleep 30; echo done`);
      const waiting = script(scripts, "waiting.sh", `cat >/dev/null; echo $$ > '${state}/waiting.pid'; sleep 300`);
      const forker = script(scripts, "fork.sh", `sleep 300 & echo $! > '${state}/forked.pid'; exit 0`);
      const big = script(scripts, "big.sh", `cat >/dev/null; head -c 6000000 /dev/zero | tr '\\0' x; head -c 3000000 /dev/zero | tr '\\0' y >&2; exit 0`);
      const broken = script(scripts, "broken.sh", `cat >/dev/null; printf '{"decision": "block", "reason": '; exit 0`);
      writeHooks(join(userHome, ".claude", "settings.json"), {
        PreToolUse: [group(guard, "Bash"), group(logger, "Bash|Write|Edit|Read"), group(slow, "Read", 1), group(forker, "LS"), group(waiting, "WebFetch", 600), group(broken, "Glob"), group(logger, "(a|aa)+$"), group(logger, "(B)\\1")],
        PostToolUse: [group(logger, "Write|Edit"), group(logger, "Bash"), group(big, "Grep")],
        UserPromptSubmit: [group(prompt), group(logger)],
        SessionStart: [group(logger), group(started)],
        Stop: [group(stop)],
        SubagentStop: [group(logger)],
        PreCompact: [group(logger)],
      });
      writeFileSync(join(sandbox.home, "settings.json"), JSON.stringify({ maxRetries: 0 }));
      server = await startFakeModelServer();
      agent = await startAgent(runtime, sandbox, {
        args: ["--model", "anthropic/claude-sonnet-4-5", "--approval-mode", "yolo"],
        env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-test-hooks-0123456789", HOME: userHome },
      });
      client = agent.client;
      ({ sessionId } = await agent.newSession());
    });

    afterAll(async () => {
      await agent.kill();
      await server.close();
      sandbox.cleanup();
    });

    const prompt = async (text: string) => (await agent.prompt(sessionId, text)).stopReason;
    const inputs = (event: string) => loggedInputs(log).filter((i) => i.hook_event_name === event);
    const lastMessages = () => JSON.stringify(server.requests.at(-1)!.body.messages);

    test("SessionStart and UserPromptSubmit output reaches the model; SessionStart, UserPromptSubmit and Stop get Claude Code's fields", async () => {
      server.push({ text: "hi" });
      expect(await prompt("hello there")).toBe("end_turn");
      const messages = lastMessages();
      expect(messages).toContain("SESSION-START-CONTEXT");
      expect(messages).toContain("TICKET-1234 CONTEXT-MARKER");
      const [start] = inputs("SessionStart");
      expect(start).toMatchObject({ session_id: sessionId, cwd: sandbox.project, hook_event_name: "SessionStart", source: "startup" });
      expect(start!.transcript_path).toEndWith(`${sessionId}.jsonl`);
      expect(inputs("UserPromptSubmit")[0]).toMatchObject({ session_id: sessionId, cwd: sandbox.project, prompt: "hello there" });
      expect(inputs("Stop")[0]).toMatchObject({ session_id: sessionId, hook_event_name: "Stop", stop_hook_active: false });
      // SessionStart runs once a session.
      server.push({ text: "again" });
      await prompt("second");
      expect(inputs("SessionStart").length).toBe(1);
      expect(lastMessages().split("SESSION-START-CONTEXT").length - 1).toBe(1);
    });

    test("a PreToolUse hook exiting 2 on rm -rf stops the command, and the model reads its reason", async () => {
      mkdirSync(join(sandbox.project, "victim"), { recursive: true });
      writeFileSync(join(sandbox.project, "victim", "keep.txt"), "precious");
      server.push({ toolCalls: [{ name: "bash", input: { command: "rm -rf victim" } }] }, { text: "stopped" });
      expect(await prompt("clean up")).toBe("end_turn");
      expect(existsSync(join(sandbox.project, "victim", "keep.txt"))).toBe(true);
      expect(lastMessages()).toContain("rm -rf is forbidden here GUARD-MARKER");
      const pre = inputs("PreToolUse").find((i) => i.tool_input?.command === "rm -rf victim");
      expect(pre).toMatchObject({ session_id: sessionId, cwd: sandbox.project, hook_event_name: "PreToolUse", tool_name: "Bash" });
      // It never ran, so no PostToolUse.
      expect(inputs("PostToolUse").some((i) => i.tool_input?.command === "rm -rf victim")).toBe(false);
    });

    test("PostToolUse on Write|Edit sees the written file's path; PostToolUse on Bash sees the command's output", async () => {
      server.push(
        { toolCalls: [{ name: "write", input: { path: "notes.txt", content: "alpha\n" } }] },
        { toolCalls: [{ name: "edit", input: { path: "notes.txt", edits: [{ oldText: "alpha", newText: "beta" }] } }] },
        { toolCalls: [{ name: "bash", input: { command: "echo BASH-OUT" } }] },
        { text: "written" },
      );
      expect(await prompt("write notes")).toBe("end_turn");
      const file = join(sandbox.project, "notes.txt");
      expect(readFileSync(file, "utf8")).toBe("beta\n");
      const post = inputs("PostToolUse");
      const write = post.find((i) => i.tool_name === "Write");
      expect(write).toMatchObject({ session_id: sessionId, hook_event_name: "PostToolUse", tool_input: { file_path: file, content: "alpha\n" }, tool_response: { filePath: file, success: true } });
      expect(post.find((i) => i.tool_name === "Edit")).toMatchObject({ tool_input: { file_path: file, old_string: "alpha", new_string: "beta" } });
      const bash = post.find((i) => i.tool_name === "Bash" && i.tool_input?.command === "echo BASH-OUT");
      expect(bash?.tool_response?.stdout).toContain("BASH-OUT");
      expect(inputs("PreToolUse").find((i) => i.tool_name === "Write")?.tool_input?.file_path).toBe(file);
    });

    test("a UserPromptSubmit hook exiting 2 refuses the prompt: the model is not asked, the user reads why", async () => {
      const before = server.requests.length;
      expect(await prompt("say the forbidden-word")).toBe("end_turn");
      expect(server.requests.length).toBe(before);
      expect(agentText(client.updates(sessionId))).toContain("no forbidden words PROMPT-BLOCK");
    });

    test("a Stop hook exiting 2 sends the model on with the reason; the next Stop says stop_hook_active", async () => {
      writeFileSync(join(state, "stop-once"), "");
      server.push({ text: "first answer" }, { text: "second answer" });
      const stops = inputs("Stop").length;
      expect(await prompt("finish")).toBe("end_turn");
      expect(lastMessages()).toContain("keep going STOP-FEEDBACK");
      expect(inputs("Stop").length).toBe(stops + 2);
      expect(inputs("Stop").filter((i) => i.stop_hook_active === true).length).toBe(1);
    });

    test("a hook past its timeout is killed and the turn goes on", async () => {
      server.push({ toolCalls: [{ name: "read", input: { path: "notes.txt" } }] }, { text: "read it" });
      expect(await prompt("read the notes")).toBe("end_turn");
      expect(lastMessages()).toContain("beta");
      expect(agentText(client.updates(sessionId))).toContain("was stopped after 1 s (its timeout)");
      const pid = Number(readFileSync(join(state, "slow.pid"), "utf8"));
      await waitFor(() => processGone(pid), 10_000, "the timed-out hook to be gone");
    });

    test("a hook that forks a sleeping child and exits does not hold the turn, and the child is ended", async () => {
      server.push({ toolCalls: [{ name: "ls", input: {} }] }, { text: "listed" });
      expect(await prompt("list")).toBe("end_turn");
      const pid = Number(readFileSync(join(state, "forked.pid"), "utf8"));
      await waitFor(() => processGone(pid), 10_000, "the forked child to be gone");
    });

    test("cancelling the turn ends a hook that is still running", async () => {
      server.push({ toolCalls: [{ name: "fetch", input: { url: "https://example.com/" } }] });
      const answer = agent.prompt(sessionId, "fetch it");
      await waitFor(() => existsSync(join(state, "waiting.pid")), 30_000, "the hook to start");
      const pid = Number(readFileSync(join(state, "waiting.pid"), "utf8"));
      await client.agent.notify(acp.methods.agent.session.cancel, { sessionId });
      expect((await answer).stopReason).toBe("cancelled");
      await waitFor(() => processGone(pid), 10_000, "the cancelled hook to be gone");
    });

    test("a hook printing megabytes and one printing broken JSON change nothing; the turn goes on", async () => {
      server.push({ toolCalls: [{ name: "grep", input: { pattern: "beta" } }] }, { toolCalls: [{ name: "find", input: { pattern: "*.txt" } }] }, { text: "searched" });
      expect(await prompt("search")).toBe("end_turn");
      const all = lastMessages();
      const messages = all.slice(all.lastIndexOf('"search"'));
      expect(messages).toContain("notes.txt:1: beta");
      expect(messages).toContain("victim/keep.txt");
      expect(messages).not.toContain("xxxxxxxxxx");
      expect(messages).not.toContain("Blocked by a PreToolUse hook");
    });

    test("a matcher the linear-time engine cannot run is left out with a notice; a costly one just does not match", () => {
      const told = agentText(client.updates(sessionId));
      expect(told).toMatch(/its matcher "\(B\)\\1" cannot be used/);
      // `(a|aa)+$` matched no tool name: the logger never saw a Glob or Grep call.
      expect(inputs("PreToolUse").some((i) => i.tool_name === "Glob" || i.tool_name === "Grep")).toBe(false);
    });

    test("a subagent's calls run the same hooks, and SubagentStop runs when it ends", async () => {
      server.push(
        { toolCalls: [{ name: "task", input: { description: "look around", prompt: "read the notes" } }] },
        { toolCalls: [{ name: "read", input: { path: "notes.txt", limit: 1 } }] },
        { text: "SUB-ANSWER" },
        { text: "parent done" },
      );
      expect(await prompt("delegate")).toBe("end_turn");
      expect(inputs("PreToolUse").some((i) => i.tool_name === "Read" && i.tool_input?.limit === 1)).toBe(true);
      expect(inputs("SubagentStop")).toHaveLength(1);
      expect(inputs("SubagentStop")[0]).toMatchObject({ session_id: sessionId, hook_event_name: "SubagentStop", stop_hook_active: false });
    });

    test("/compact runs PreCompact first", async () => {
      server.push({ text: "SUMMARY" });
      await prompt("/compact keep the notes");
      expect(inputs("PreCompact")[0]).toMatchObject({ hook_event_name: "PreCompact", trigger: "manual", custom_instructions: "keep the notes" });
    });

    test("/session and session/status show the hooks in force", async () => {
      const status = (await client.agent.request("session/status" as never, { sessionId } as never)) as { hooks?: { inForce: Array<{ event: string; origin: string }> } };
      expect(status.hooks?.inForce.some((h) => h.event === "PreToolUse" && h.origin === "user")).toBe(true);
      await prompt("/session");
      expect(agentText(client.updates(sessionId))).toContain("Hooks in force:");
    });
  });
}
