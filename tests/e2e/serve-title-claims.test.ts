/**
 * Unique titles under concurrency, over real HTTP against `agent serve` on
 * each runtime: many simultaneous creates with one title leave exactly one
 * session holding it, two servers sharing a session directory never both
 * keep it, and `/name` does not take another session's title.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { makeSandbox, RUNTIMES, type Sandbox } from "../helpers/agent-process.ts";
import { agentText } from "../helpers/acp-client.ts";
import { bearer, startServe, TOKEN, type ServeProcess } from "../helpers/serve-process.ts";
import { startAgent } from "../helpers/session-agent.ts";

const CONCURRENT = 20;

function create(server: ServeProcess, cwd: string, title: string): Promise<Response> {
  return fetch(`${server.url}/v1/sessions`, {
    method: "POST",
    headers: { ...bearer(TOKEN), "content-type": "application/json" },
    body: JSON.stringify({ cwd, title }),
  });
}

const get = (server: ServeProcess, ref: string) => fetch(`${server.url}/v1/sessions/${encodeURIComponent(ref)}`, { headers: bearer(TOKEN) });

describe.each(RUNTIMES)("unique titles on %s", (runtime) => {
  let sandbox: Sandbox | undefined;
  const servers: ServeProcess[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.stop();
    sandbox?.cleanup();
  });

  test(`${CONCURRENT} concurrent creates with one title: one 201, the rest 409, and the title resolves`, async () => {
    sandbox = makeSandbox();
    const server = await startServe(runtime, sandbox);
    servers.push(server);
    const responses = await Promise.all(Array.from({ length: CONCURRENT }, () => create(server, sandbox!.project, "shared title")));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([201, ...Array<number>(CONCURRENT - 1).fill(409)]);
    const bodies = await Promise.all(responses.map((r) => r.json()));
    const winner = bodies.find((_, i) => responses[i]!.status === 201) as { id: string };
    expect(bodies.filter((b) => b.error).every((b) => b.error.code === "title_taken")).toBe(true);
    const resolved = await get(server, "shared title");
    expect(resolved.status).toBe(200);
    expect((await resolved.json()).id).toBe(winner.id);
  }, 60_000);

  test("two servers sharing a session directory never both keep a title", async () => {
    sandbox = makeSandbox();
    const a = await startServe(runtime, sandbox);
    servers.push(a);
    const b = await startServe(runtime, sandbox);
    servers.push(b);
    for (let round = 0; round < 3; round++) {
      const title = `race ${round}`;
      const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => create(i % 2 === 0 ? a : b, sandbox!.project, title)));
      const won = responses.filter((r) => r.status === 201);
      expect(responses.every((r) => r.status === 201 || r.status === 409)).toBe(true);
      expect(won.length).toBeLessThanOrEqual(1);
      // Whatever the outcome, the title never names two sessions.
      const resolved = await get(a, title);
      if (won.length === 1) {
        expect(resolved.status).toBe(200);
        expect((await resolved.json()).id).toBe(((await won[0]!.json()) as { id: string }).id);
      } else {
        expect(resolved.status).toBe(404);
        expect((await resolved.json()).error.code).toBe("session_not_found");
      }
    }
  }, 60_000);

  test("/name refuses a title another session holds, and renames otherwise", async () => {
    sandbox = makeSandbox();
    const agent = await startAgent(runtime, sandbox, { args: ["--model", "faux/echo"] });
    try {
      const { sessionId: first } = await agent.newSession();
      const { sessionId: second } = await agent.newSession();
      await agent.prompt(first, "/name Release prep");
      await agent.prompt(second, "/name Release prep");
      expect(agentText(agent.client.updates(second))).toContain('Another session is already titled "Release prep"');
      await agent.prompt(second, "/name Release notes");
      expect(agentText(agent.client.updates(second))).toContain('Session renamed to "Release notes"');
      const { sessions } = await agent.client.agent.request("session/list", {});
      const titles = Object.fromEntries(sessions.map((s: { sessionId: string; title?: string | null }) => [s.sessionId, s.title]));
      expect(titles).toMatchObject({ [first]: "Release prep", [second]: "Release notes" });
    } finally {
      await agent.stop();
    }
  }, 60_000);
});
