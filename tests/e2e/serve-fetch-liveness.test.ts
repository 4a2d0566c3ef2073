/**
 * `agent serve` stays live while a session's fetch converts a costly page,
 * on each runtime: `/healthz` and a second client are answered before the
 * fetch of a 5 MiB page of nested divs completes, and `session/cancel`
 * over the WebSocket ends the turn.
 */
import { afterAll, beforeAll, describe, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { acp } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES } from "../helpers/agent-process.ts";
import { expectLiveThenCancelled, withTwoClients } from "../helpers/serve-liveness.ts";
import { htmlRoute, NESTED_DIVS_AT_BOUND, nestedDivs, startWebServer, type WebServer } from "../helpers/web-server.ts";

const { methods } = acp;
const deep = htmlRoute(nestedDivs(NESTED_DIVS_AT_BOUND));
let site: WebServer;

beforeAll(async () => {
  site = await startWebServer({ "/deep": deep.route });
});

afterAll(async () => {
  await site.close();
});

describe.each(RUNTIMES)("serve while a fetch converts a hostile page on %s", (runtime) => {
  test("/healthz and a second client are answered before the fetch completes; cancel ends the turn", async () => {
    const sandbox = makeSandbox();
    const host = `127.0.0.1:${site.port}`;
    writeFileSync(join(sandbox.home, "settings.json"), JSON.stringify({ fetch: { allowHosts: [host] }, permissionRules: [{ action: "allow", host }] }));
    const script = sandbox.write("script.json", JSON.stringify([{ toolCalls: [{ id: "f1", name: "fetch", input: { url: `http://${host}/deep` } }] }, { text: "after" }]));
    await withTwoClients(runtime, sandbox, script, async (server, clients, sessionId) => {
      const sentBefore = deep.counter.count();
      const turn = clients.alice.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "read the deep page" }] });
      await deep.counter.sent(sentBefore + 1);
      // The page is all on the wire; the checks start with another client's handshake, by when it has been read.
      await expectLiveThenCancelled(server, clients, { sessionId, toolCallId: "f1", turn }, sandbox.project);
    });
  }, 60_000);
});
