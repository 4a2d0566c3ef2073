/**
 * How prompt content blocks reach the model, seen through `faux/echo`, which
 * repeats the user message it was given.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { agentText, connectClient, initialize, acp, type TestClient } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES, spawnAgent, type AgentProcess, type Sandbox } from "../helpers/agent-process.ts";

describe.each(RUNTIMES)("prompt content on %s", (runtime) => {
  let sandbox: Sandbox;
  let proc: AgentProcess;
  let client: TestClient;
  let sessionId: string;

  beforeAll(async () => {
    sandbox = makeSandbox();
    sandbox.write("project/notes.md", "# Notes\nlinked file body\n");
    sandbox.write("extra/shared.txt", "from the additional directory\n");
    sandbox.write("private.txt", "outside every root\n");
    sandbox.write("project/big.txt", "x".repeat(2 * 1024 * 1024 + 10));
    symlinkSync(join(sandbox.root, "private.txt"), join(sandbox.project, "sneaky.txt"));
    proc = spawnAgent(runtime, ["agent", "stdio", "--model", "faux/echo"], { env: { ACP_EDGE_HOME: sandbox.home } });
    client = connectClient(proc);
    await initialize(client);
    ({ sessionId } = await client.agent.request(acp.methods.agent.session.new, {
      cwd: sandbox.project,
      mcpServers: [],
      additionalDirectories: [join(sandbox.root, "extra")],
    }));
  });
  afterAll(() => {
    proc.child.kill("SIGKILL");
    sandbox.cleanup();
  });

  async function echo(prompt: acp.ContentBlock[]): Promise<string> {
    const before = client.updates(sessionId).length;
    await client.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt });
    return agentText(client.updates(sessionId).slice(before));
  }
  const link = (path: string): acp.ContentBlock => ({ type: "resource_link", uri: `file://${path}`, name: path });

  test("resource links inside the roots are embedded, in cwd and additional directories", async () => {
    const text = await echo([{ type: "text", text: "see" }, link(join(sandbox.project, "notes.md")), link(join(sandbox.root, "extra/shared.txt"))]);
    expect(text).toContain("linked file body");
    expect(text).toContain("from the additional directory");
  });

  test("links outside the roots, through escaping symlinks, too big, or not files become notes", async () => {
    const text = await echo([
      link(join(sandbox.root, "private.txt")),
      link(join(sandbox.project, "sneaky.txt")),
      link(join(sandbox.project, "big.txt")),
      { type: "resource_link", uri: "https://example.com/page", name: "page" },
      link(join(sandbox.project, "missing.txt")),
    ]);
    expect(text).not.toContain("outside every root");
    expect(text).toContain(`[linked resource file://${join(sandbox.root, "private.txt")}:`);
    expect(text).toContain("larger than 2 MiB");
    expect(text).toContain("https://example.com/page: not a local file");
    expect(text.match(/\[linked resource/g)?.length).toBe(5);
  });

  test("embedded resources: text is tagged, non-image blobs are noted", async () => {
    const text = await echo([
      { type: "resource", resource: { uri: "file:///a.md", text: "embedded body", mimeType: "text/markdown" } },
      { type: "resource", resource: { uri: "file:///a.bin", blob: "AAECAwQF", mimeType: "application/octet-stream" } },
    ]);
    expect(text).toContain('<resource uri="file:///a.md" mimeType="text/markdown">\nembedded body\n</resource>');
    expect(text).toContain("[embedded resource file:///a.bin (application/octet-stream, 6 bytes) was not decoded]");
  });

  test("image blocks reach the model as images", async () => {
    const text = await echo([{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }, { type: "text", text: "what is this" }]);
    expect(text).toContain("[image image/png]");
    expect(text).toContain("what is this");
  });
});
