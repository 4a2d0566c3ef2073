/**
 * The fetch tool reads an HTML page in a shipped artifact: its converter
 * runs on a worker thread whose script the build carries along, so every
 * way acp-edge ships is checked to start that thread and convert a page.
 */
import { expect } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { initialize, acp } from "./acp-client.ts";
import type { Launcher, Sandbox } from "./agent-process.ts";
import { withStdioAgent } from "./artifact-checks.ts";
import { finalStatus, toolResultText } from "./scenario.ts";
import { ARTICLE_HTML, htmlRoute, startWebServer } from "./web-server.ts";

/** One fetch of a local HTML article over stdio; its Markdown comes back. */
export async function checkFetchHtml(launcher: Launcher, sandbox: Sandbox): Promise<void> {
  const site = await startWebServer({ "/article": htmlRoute(ARTICLE_HTML).route });
  const host = `127.0.0.1:${site.port}`;
  writeFileSync(join(sandbox.home, "settings.json"), JSON.stringify({ fetch: { allowHosts: [host] }, permissionRules: [{ action: "allow", host }] }));
  const script = sandbox.write("fetch-script.json", JSON.stringify([{ toolCalls: [{ id: "f1", name: "fetch", input: { url: `http://${host}/article` } }] }, { text: "read" }]));
  try {
    await withStdioAgent(launcher, ["agent", "stdio", "--model", "faux/script", "--approval-mode", "read-only"], { ACP_EDGE_HOME: sandbox.home, ACP_EDGE_FAUX_SCRIPT: script }, async (client) => {
      await initialize(client);
      const { sessionId } = await client.agent.request(acp.methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] });
      const response = await client.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "read the guide" }] });
      expect(response.stopReason).toBe("end_turn");
      expect(finalStatus(client.updates(sessionId), "f1")).toBe("completed");
      expect(toolResultText(client.updates(sessionId), "f1")).toContain("# Upgrading to v2");
    });
  } finally {
    await site.close();
  }
}
