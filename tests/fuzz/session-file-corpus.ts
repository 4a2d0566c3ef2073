/**
 * Real session files for the fuzzer: a conversation run through the whole
 * agent (tool calls that succeed and fail, a permission granted "always",
 * a plan, mode and thought-level changes, a rename, a compaction, usage),
 * so every entry type the agent writes is in the file as the store wrote it.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { acp } from "../helpers/acp-client.ts";
import { startInProcessAgent } from "./session-file-agent.ts";

/** A stored session: where its file is, and its bytes. */
export interface CorpusSession {
  sessionId: string;
  cwd: string;
  file: string;
  bytes: Uint8Array;
}

/** Runs the corpus conversation with sessions under `root`/sessions and returns the session file. */
export async function buildCorpusSession(root: string): Promise<CorpusSession> {
  const home = join(root, "home");
  const cwd = join(root, "project");
  const sessionDir = join(root, "sessions");
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(cwd, "notes.txt"), "TODO: ship it\nhello from the notes\n");
  const agent = await startInProcessAgent({
    home,
    sessionDir,
    approvalMode: "ask",
    onPermission: (params) => {
      const always = params.options.find((o) => o.kind === "allow_always") ?? params.options[0]!;
      return { outcome: { outcome: "selected", optionId: always.optionId } };
    },
    steps: [
      {
        thinking: "Let me look around first.",
        toolCalls: [
          { id: "c_read", name: "read", input: { path: "notes.txt" } },
          { id: "c_grep", name: "grep", input: { pattern: "TODO|hello", context: 1 } },
          { id: "c_ls", name: "ls", input: {} },
          { id: "c_find", name: "find", input: { pattern: "*.txt" } },
          { id: "c_missing", name: "read", input: { path: "missing.txt" } },
          { id: "c_plan", name: "plan", input: { entries: [{ content: "Read the notes", status: "completed" }, { content: "Write a summary", status: "pending", priority: "high" }] } },
        ],
      },
      { text: "The notes say hello and list one TODO." },
      { toolCalls: [{ id: "c_write", name: "write", input: { path: "summary.txt", content: "hello\n" } }] },
      { toolCalls: [{ id: "c_edit", name: "edit", input: { path: "summary.txt", edits: [{ oldText: "hello", newText: "hello, world" }] } }] },
      { text: "Written and edited summary.txt." },
      { text: "Summary: the user read notes.txt and wrote summary.txt." },
      { text: "Continuing after the summary. Ünïcödé ✓ and \"quotes\"\nand lines." },
    ],
  });
  try {
    const { sessionId } = await agent.client.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    const prompt = async (text: string) => {
      const { stopReason } = await agent.client.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
      if (stopReason !== "end_turn") throw new Error(`corpus turn "${text}" ended with ${stopReason}`);
    };
    await prompt("What do the notes say?");
    await prompt("Write a summary file.");
    await agent.client.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "write" });
    await agent.client.agent.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: "thought_level", value: "low" });
    await prompt("/name Fuzz corpus");
    await prompt("/compact");
    await prompt("Go on.");
    await agent.client.agent.request(acp.methods.agent.session.close, { sessionId });
    const file = findSessionFile(sessionDir, sessionId);
    return { sessionId, cwd, file, bytes: new Uint8Array(readFileSync(file)) };
  } finally {
    await agent.close();
  }
}

/** The file of `sessionId` below `sessionDir`. */
export function findSessionFile(sessionDir: string, sessionId: string): string {
  for (const dir of readdirSync(sessionDir)) {
    const names = readdirSync(join(sessionDir, dir));
    if (names.includes(`${sessionId}.jsonl`)) return join(sessionDir, dir, `${sessionId}.jsonl`);
  }
  throw new Error(`no session file for ${sessionId}`);
}
