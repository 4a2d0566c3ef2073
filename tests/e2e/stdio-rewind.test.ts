/**
 * `_session/rewind` (the JetBrains AIR extension) over stdio against the fake
 * model server, on every runtime: message ids (the client's kept, the
 * agent's answered and replayed), the rewind itself (what the next model
 * request and a `session/load` in a new process no longer carry), and hostile
 * points that must change nothing.
 */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { acp, agentText } from "../helpers/acp-client.ts";
import { RUNTIMES } from "../helpers/agent-process.ts";
import { rpcError, waitFor } from "../helpers/expect-error.ts";
import { conversation, userChunks } from "../helpers/queue-steer.ts";
import { startAgent } from "../helpers/session-agent.ts";
import { fakeModelSuite, fingerprint, promptWithId, rewind } from "../helpers/rewind-requests.ts";

const { methods } = acp;

describe.each(RUNTIMES)("rewinding the conversation on %s", (runtime) => {
  const suite = fakeModelSuite();
  const read = (relative: string) => readFileSync(join(suite.sandbox.root, relative), "utf8");

  test("initialize advertises the extension; a rewind removes the point and what follows from the next request and from a load in a new process", async () => {
    const agent = await startAgent(runtime, suite.sandbox, { args: [] });
    const init = agent.client.received.find((m) => (m.result as { agentCapabilities?: unknown })?.agentCapabilities) as { result: { _meta?: Record<string, any> } };
    expect(init.result._meta?.jetbrains?.air?.version).toBe(1);
    expect(init.result._meta?.jetbrains?.air?.capabilities).toContain("sessionRewind");
    const { sessionId } = await agent.newSession();
    suite.server.push({ text: "one done" }, { text: "two done" }, { text: "three done" });
    const first = await promptWithId(agent, sessionId, "prompt one", "client-id-1");
    expect(first.userMessageId).toBe("client-id-1");
    const second = await promptWithId(agent, sessionId, "prompt two");
    expect(second.userMessageId).toMatch(/^msg_/);
    await promptWithId(agent, sessionId, "prompt three");

    // A wrong fingerprint for a known id changes nothing.
    const wrong = await rpcError(rewind(agent, { sessionId, beforeMessage: { messageId: second.userMessageId, messageFingerprint: fingerprint("prompt three"), messageOccurrence: 1 } }), -32602);
    expect(wrong.message).toContain("nothing was rewound");
    suite.server.push({ text: "still all there" });
    const base = suite.server.requests.length;
    await promptWithId(agent, sessionId, "prompt four");
    expect(conversation(suite.server.requests[base]!)).toEqual(["user:prompt one", "assistant:one done", "user:prompt two", "assistant:two done", "user:prompt three", "assistant:three done", "user:prompt four"]);

    expect(await rewind(agent, { sessionId, beforeMessage: { messageId: second.userMessageId, messageFingerprint: fingerprint("prompt two"), messageOccurrence: 1 } })).toEqual({ rewound: true });
    suite.server.push({ text: "after the rewind" });
    await promptWithId(agent, sessionId, "prompt five");
    expect(conversation(suite.server.requests[base + 1]!)).toEqual(["user:prompt one", "assistant:one done", "user:prompt five"]);
    expect(await agent.stop()).toBe(0);

    // A new process (another runtime would do too) replays and continues the rewound conversation.
    const again = await startAgent(runtime, suite.sandbox, { args: [] });
    try {
      await again.client.agent.request(methods.agent.session.load, { sessionId, cwd: suite.sandbox.project, mcpServers: [] });
      const replay = again.client.updates(sessionId);
      expect(userChunks(replay)).toEqual(["prompt one", "prompt five"]);
      // The client's id is replayed as it was given.
      expect(replay.find((u) => u.sessionUpdate === "user_message_chunk")).toMatchObject({ messageId: "client-id-1" });
      expect(JSON.stringify(replay)).not.toContain("two done");
      suite.server.push({ text: "reloaded" });
      const next = suite.server.requests.length;
      await promptWithId(again, sessionId, "prompt six");
      expect(conversation(suite.server.requests[next]!)).toEqual(["user:prompt one", "assistant:one done", "user:prompt five", "assistant:after the rewind", "user:prompt six"]);
      // A replayed id works for a rewind in the new process.
      const fiveId = (replay.filter((u) => u.sessionUpdate === "user_message_chunk")[1] as { messageId?: string }).messageId;
      expect(await rewind(again, { sessionId, beforeMessage: { messageId: fiveId, messageFingerprint: fingerprint("prompt five"), messageOccurrence: 1 } })).toEqual({ rewound: true });
      suite.server.push({ text: "x" });
      const last = suite.server.requests.length;
      await promptWithId(again, sessionId, "prompt seven");
      expect(conversation(suite.server.requests[last]!)).toEqual(["user:prompt one", "assistant:one done", "user:prompt seven"]);
    } finally {
      expect(await again.stop()).toBe(0);
    }
  }, 60_000);

  test("an id the agent does not know is found by fingerprint and occurrence; hostile points change nothing", async () => {
    const agent = await startAgent(runtime, suite.sandbox, { args: [] });
    try {
      const { sessionId } = await agent.newSession();
      suite.server.push({ text: "a1" }, { text: "b1" }, { text: "a2" });
      await promptWithId(agent, sessionId, "same text");
      await promptWithId(agent, sessionId, "other text");
      await promptWithId(agent, sessionId, "same text");
      const point = (over: Record<string, unknown>) => ({ sessionId, beforeMessage: { messageId: "restored-elsewhere", messageFingerprint: fingerprint("same text"), messageOccurrence: 1, ...over } });
      // Hostile points: each refused, none changes the conversation.
      await rpcError(rewind(agent, point({ messageOccurrence: 3 })), -32602);
      await rpcError(rewind(agent, point({ messageOccurrence: 0 })), -32602);
      await rpcError(rewind(agent, point({ messageOccurrence: 1.5 })), -32602);
      await rpcError(rewind(agent, point({ messageFingerprint: fingerprint("never sent") })), -32602);
      await rpcError(rewind(agent, point({ messageFingerprint: "sha256:zz" })), -32602);
      await rpcError(rewind(agent, point({ messageId: "x".repeat(100_000) })), -32602);
      await rpcError(rewind(agent, { sessionId, beforeMessage: "nope" }), -32602);
      await rpcError(rewind(agent, { ...point({}), sessionId: "sess_unknown" }), -32002);
      suite.server.push({ text: "intact" });
      const base = suite.server.requests.length;
      await promptWithId(agent, sessionId, "check");
      expect(conversation(suite.server.requests[base]!)).toEqual(["user:same text", "assistant:a1", "user:other text", "assistant:b1", "user:same text", "assistant:a2", "user:check"]);

      // The second "same text" by occurrence: what came before it stays.
      expect(await rewind(agent, point({ messageOccurrence: 2 }))).toEqual({ rewound: true });
      suite.server.push({ text: "ok" });
      const after = suite.server.requests.length;
      await promptWithId(agent, sessionId, "next");
      expect(conversation(suite.server.requests[after]!)).toEqual(["user:same text", "assistant:a1", "user:other text", "assistant:b1", "user:next"]);
    } finally {
      expect(await agent.stop()).toBe(0);
    }
  }, 60_000);

  test("a client's messageId that is huge, has control characters or names an existing message is refused", async () => {
    const agent = await startAgent(runtime, suite.sandbox, { args: [] });
    try {
      const { sessionId } = await agent.newSession();
      suite.server.push({ text: "first" });
      await promptWithId(agent, sessionId, "first prompt", "taken");
      const requests = suite.server.requests.length;
      await rpcError(promptWithId(agent, sessionId, "again", "taken"), -32602);
      await rpcError(promptWithId(agent, sessionId, "huge", "m".repeat(10_000)), -32602);
      await rpcError(promptWithId(agent, sessionId, "control", "a\u0000b"), -32602);
      // None of them reached the model or the conversation.
      expect(suite.server.requests.length).toBe(requests);
      suite.server.push({ text: "fine" });
      await promptWithId(agent, sessionId, "fine prompt");
      expect(conversation(suite.server.requests[requests]!)).toEqual(["user:first prompt", "assistant:first", "user:fine prompt"]);
    } finally {
      expect(await agent.stop()).toBe(0);
    }
  }, 60_000);

  test("a rewind during a running turn cancels it first, then removes its prompt", async () => {
    const agent = await startAgent(runtime, suite.sandbox, { args: [] });
    try {
      const { sessionId } = await agent.newSession();
      suite.server.push({ text: "kept" });
      await promptWithId(agent, sessionId, "keep me");
      let release!: () => void;
      suite.server.push({ text: "never seen", gate: new Promise<void>((resolve) => (release = resolve)) });
      const base = suite.server.requests.length;
      const running = agent.client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "running prompt" }] });
      await suite.server.request(base + 1);
      const rewound = rewind(agent, { sessionId, beforeMessage: { messageId: "unknown-here", messageFingerprint: fingerprint("running prompt"), messageOccurrence: 1 } });
      expect((await running).stopReason).toBe("cancelled");
      expect(await rewound).toEqual({ rewound: true });
      release();
      suite.server.push({ text: "after" });
      const next = suite.server.requests.length;
      await promptWithId(agent, sessionId, "after the rewind");
      expect(conversation(suite.server.requests[next]!)).toEqual(["user:keep me", "assistant:kept", "user:after the rewind"]);
      await waitFor(() => true);
    } finally {
      expect(await agent.stop()).toBe(0);
    }
  }, 60_000);

  test("/undo and /rewind N, announced with the commands, rewind the conversation from any editor", async () => {
    const agent = await startAgent(runtime, suite.sandbox, { args: [] });
    try {
      const { sessionId } = await agent.newSession();
      await waitFor(() => agent.client.updates(sessionId).some((u) => u.sessionUpdate === "available_commands_update"), 10_000, "commands");
      const announced = agent.client.updates(sessionId).find((u) => u.sessionUpdate === "available_commands_update");
      const names = announced?.sessionUpdate === "available_commands_update" ? announced.availableCommands.map((c) => c.name) : [];
      expect(names).toEqual(expect.arrayContaining(["undo", "rewind"]));
      const say = async (text: string) => {
        const before = agent.client.updates(sessionId).length;
        expect((await agent.prompt(sessionId, text)).stopReason).toBe("end_turn");
        return agentText(agent.client.updates(sessionId).slice(before));
      };
      expect(await say("/undo")).toContain("Nothing to undo");
      suite.server.push({ text: "r1" }, { text: "r2" }, { text: "r3" });
      await say("first");
      await say("second");
      await say("third");
      expect(await say("/undo")).toContain("“third”");
      expect(await say("/rewind")).toContain("1. “first”\n2. “second”");
      expect(await say("/rewind 7")).toContain("Nothing was rewound");
      expect(await say("/rewind -1")).toContain("Nothing was rewound");
      expect(await say("/rewind 2")).toContain("“second”");
      suite.server.push({ text: "r4" });
      const base = suite.server.requests.length;
      await say("fourth");
      expect(conversation(suite.server.requests[base]!)).toEqual(["user:first", "assistant:r1", "user:fourth"]);
    } finally {
      expect(await agent.stop()).toBe(0);
    }
  }, 60_000);

  test("_session/rewind_files puts back what the agent wrote, edited and what its commands did from a prompt on, and never what the user changed since", async () => {
    suite.sandbox.write("project/user.txt", "the user's file\n");
    suite.sandbox.write("project/doomed.txt", "about to be deleted by a command\n");
    suite.sandbox.write("project/node_modules/dep/index.js", "skipped by snapshots\n");
    const first = await startAgent(runtime, suite.sandbox, { args: ["--approval-mode", "yolo"] });
    let agent = first;
    try {
      const { sessionId } = await agent.newSession();
      const write = (id: string, path: string, content: string) => ({ id, name: "write", input: { path, content } });
      const edit = (id: string, path: string, oldText: string, newText: string) => ({ id, name: "edit", input: { path, edits: [{ oldText, newText }] } });
      suite.server.push(
        { toolCalls: [write("w1", "keep.txt", "kept\n"), write("w2", "notes.txt", "notes v1\n")] },
        { text: "one" },
        { toolCalls: [edit("e1", "notes.txt", "v1", "v2"), write("w3", "new.txt", "created\n"), edit("e2", "user.txt", "user's", "agent's")] },
        { toolCalls: [{ id: "b1", name: "bash", input: { command: "printf 'made by a command\\n' > sub/cmd-new.txt; rm doomed.txt; printf 'rewritten\\n' > keep.txt" } }] },
        { text: "two" },
        { toolCalls: [edit("e3", "new.txt", "created", "created and edited")] },
        { text: "three" },
      );
      suite.sandbox.write("project/sub/.keep", "");
      await promptWithId(agent, sessionId, "prompt one");
      const second = await promptWithId(agent, sessionId, "prompt two");
      await promptWithId(agent, sessionId, "prompt three");
      expect(read("project/notes.txt")).toBe("notes v2\n");
      expect(read("project/new.txt")).toBe("created and edited\n");
      // The user edits a file the agent changed.
      suite.sandbox.write("project/user.txt", "the agent's file, then the user's edit\n");
      // The checkpoints are the session's: a new process that loads it can put the files back.
      expect(await first.stop()).toBe(0);
      agent = await startAgent(runtime, suite.sandbox, { args: ["--approval-mode", "yolo"] });
      await agent.client.agent.request(methods.agent.session.load, { sessionId, cwd: suite.sandbox.project, mcpServers: [] });

      const point = { messageId: second.userMessageId, messageFingerprint: fingerprint("prompt two"), messageOccurrence: 1 };
      const files = (answer: { files: Array<{ path: string; action: string; applied: boolean }> }) =>
        Object.fromEntries(answer.files.map((f) => [f.path.split("/").pop(), `${f.action}${f.applied ? "" : " (not applied)"}`]));
      // A wrong fingerprint changes nothing.
      await rpcError(agent.client.agent.request("_session/rewind_files", { sessionId, beforeMessage: { ...point, messageFingerprint: fingerprint("prompt one") } }), -32602);
      await rpcError(agent.client.agent.request("_session/rewind_files", { sessionId: "sess_unknown", beforeMessage: point }), -32002);
      await rpcError(agent.client.agent.request("_session/rewind_files", { sessionId, beforeMessage: point, dryRun: "yes" }), -32602);
      await rpcError(agent.client.agent.request("_session/rewind_files", { sessionId, beforeMessage: { ...point, messageOccurrence: 2, messageId: "unknown" } }), -32602);
      const dry = await agent.client.agent.request<any>("_session/rewind_files", { sessionId, beforeMessage: point, dryRun: true });
      expect(read("project/sub/cmd-new.txt")).toBe("made by a command\n");
      expect(existsSync(join(suite.sandbox.root, "project/doomed.txt"))).toBe(false);
      expect(files(dry)).toEqual({
        "notes.txt": "restore (not applied)",
        "new.txt": "delete (not applied)",
        "user.txt": "conflict (not applied)",
        "cmd-new.txt": "delete (not applied)",
        "doomed.txt": "recreate (not applied)",
        "keep.txt": "restore (not applied)",
      });
      expect(read("project/notes.txt")).toBe("notes v2\n");
      expect(existsSync(join(suite.sandbox.root, "project/new.txt"))).toBe(true);

      const real = await agent.client.agent.request<any>("_session/rewind_files", { sessionId, beforeMessage: point });
      expect(files(real)).toEqual({ "notes.txt": "restore", "new.txt": "delete", "user.txt": "conflict (not applied)", "cmd-new.txt": "delete", "doomed.txt": "recreate", "keep.txt": "restore" });
      expect(existsSync(join(suite.sandbox.root, "project/sub/cmd-new.txt"))).toBe(false);
      expect(read("project/doomed.txt")).toBe("about to be deleted by a command\n");
      expect(read("project/notes.txt")).toBe("notes v1\n");
      expect(existsSync(join(suite.sandbox.root, "project/new.txt"))).toBe(false);
      expect(read("project/user.txt")).toBe("the agent's file, then the user's edit\n");
      expect(read("project/keep.txt")).toBe("kept\n");
      // Done once: a second run finds nothing left to put back.
      expect((await agent.client.agent.request<any>("_session/rewind_files", { sessionId, beforeMessage: point, dryRun: true })).files).toEqual([]);

      expect(await rewind(agent, { sessionId, beforeMessage: point })).toEqual({ rewound: true });
      suite.server.push({ text: "fresh" });
      const base = suite.server.requests.length;
      await promptWithId(agent, sessionId, "prompt four");
      expect(conversation(suite.server.requests[base]!)).toEqual(["user:prompt one", "assistant:call write", "assistant:call write", "tool:w1", "tool:w2", "assistant:one", "user:prompt four"]);
    } finally {
      expect(await agent.stop()).toBe(0);
    }
  }, 60_000);

  test("a journal that names files outside the session's folders gets nothing written there", async () => {
    const agent = await startAgent(runtime, suite.sandbox, { args: [] });
    const { sessionId } = await agent.newSession();
    suite.server.push({ text: "fine" });
    const sent = await promptWithId(agent, sessionId, "an innocent prompt");
    expect(await agent.stop()).toBe(0);
    // Someone edits the session file: a command "deleted" files outside the project, with a copy to bring back.
    const bytes = "written by a forged journal\n";
    const id = createHash("sha256").update(bytes).digest("hex");
    const sessionFile = findSessionFile(join(suite.sandbox.home, "sessions"), sessionId);
    const store = join(sessionFile.replace(/\.jsonl$/, ".outputs"), "checkpoints", id.slice(0, 2));
    mkdirSync(store, { recursive: true });
    writeFileSync(join(store, id), bytes);
    const forged = [join(suite.sandbox.root, "outside.txt"), `${suite.sandbox.project}/../outside-too.txt`, "relative.txt"];
    appendFileSync(sessionFile, `${JSON.stringify({ type: "command_files", toolCallId: "forged", files: forged.map((path) => ({ path, before: id, after: null })) })}\n`);

    const again = await startAgent(runtime, suite.sandbox, { args: [] });
    try {
      await again.client.agent.request(methods.agent.session.load, { sessionId, cwd: suite.sandbox.project, mcpServers: [] });
      const point = { messageId: sent.userMessageId, messageFingerprint: fingerprint("an innocent prompt"), messageOccurrence: 1 };
      const answer = await again.client.agent.request<any>("_session/rewind_files", { sessionId, beforeMessage: point });
      expect(answer.files.map((f: { action: string; applied: boolean; reason?: string }) => `${f.action}${f.applied ? "" : " (not applied)"}: ${f.reason}`)).toEqual(
        forged.map(() => "unavailable (not applied): outside the session's folders"),
      );
      expect(existsSync(join(suite.sandbox.root, "outside.txt"))).toBe(false);
      expect(existsSync(join(suite.sandbox.root, "outside-too.txt"))).toBe(false);
    } finally {
      expect(await again.stop()).toBe(0);
    }
  }, 60_000);
});

/** The session's file under the sessions folder (one folder per directory). */
function findSessionFile(root: string, sessionId: string): string {
  for (const folder of readdirSync(root)) {
    const path = join(root, folder, `${sessionId}.jsonl`);
    if (existsSync(path)) return path;
  }
  throw new Error(`no file for ${sessionId}`);
}

