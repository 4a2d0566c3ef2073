/**
 * The `ask` tool over stdio on each runtime, against the fake model server:
 * offered only to a client that advertises `elicitation.form`; each kind of
 * question becomes the form the schema describes, and the answer, a decline
 * or a dismissal comes back to the model; hostile answers are checked against
 * the form and never reach the model; a cancelled turn cancels the pending
 * request with `$/cancel_request`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { acp, connectClient, initialize, type ElicitationAnswer, type TestClient } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES, spawnAgent, type AgentProcess, type Sandbox } from "../helpers/agent-process.ts";
import { waitFor } from "../helpers/expect-error.ts";
import { startFakeModelServer, type FakeModelServer } from "../helpers/fake-model-server.ts";
import { useFakeProvider } from "../helpers/fake-provider.ts";

const { methods } = acp;
const MARKER = "HOSTILE-MARKER-7c1e";

/** The tool messages of the model's last request, by tool call id. */
function told(server: FakeModelServer): Map<string, string> {
  const body = server.requests.at(-1)?.body as { messages: Array<{ role: string; tool_call_id?: string; content: unknown }> };
  return new Map(body.messages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id!, typeof m.content === "string" ? m.content : JSON.stringify(m.content)]));
}

/** The tool names the model was offered in request `index`. */
const offered = (server: FakeModelServer, index: number) =>
  ((server.requests[index]?.body as { tools?: Array<{ function: { name: string } }> }).tools ?? []).map((t) => t.function.name);

describe.each(RUNTIMES)("the ask tool on %s", (runtime) => {
  let sandbox: Sandbox;
  let server: FakeModelServer;
  let proc: AgentProcess;
  let client: TestClient;
  let sessionId: string;
  let answer: ElicitationAnswer = () => ({ action: "cancel" });
  const asked: acp.CreateElicitationRequest[] = [];

  beforeAll(async () => {
    sandbox = makeSandbox();
    server = await startFakeModelServer();
    useFakeProvider(sandbox.home, server, { keyEnv: "LOCAL_KEY" });
    proc = spawnAgent(runtime, ["agent", "stdio"], { env: { ACP_EDGE_HOME: sandbox.home, LOCAL_KEY: "sk-test-ask-0000" } });
    client = connectClient(proc, {
      onElicitation: (params, signal) => {
        asked.push(params);
        return answer(params, signal);
      },
    });
    await initialize(client, { elicitation: { form: {} } });
    ({ sessionId } = await client.agent.request(methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] }));
  });

  afterAll(async () => {
    client.close();
    proc.child.kill("SIGKILL");
    await server.close();
    sandbox.cleanup();
  });

  /** One turn in which the model asks `input`; answers what the model was told. */
  async function ask(input: Record<string, unknown>, reply: ElicitationAnswer): Promise<{ text: string; stopReason: string; request: acp.CreateElicitationRequest | undefined }> {
    answer = reply;
    const before = asked.length;
    const id = `ask_${server.requests.length}`;
    server.push({ toolCalls: [{ id, name: "ask", input }] }, { text: "thanks" });
    const { stopReason } = await client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "ask me" }] });
    return { text: told(server).get(id) ?? "", stopReason, request: asked[before] };
  }

  test("offered to this client; one choice, several, free text: the form is the schema's, the answer reaches the model", async () => {
    const single = await ask({ question: "Which database?", choices: ["Postgres", "SQLite", "None"] }, () => ({ action: "accept", content: { answer: "SQLite" } }));
    expect(offered(server, server.requests.length - 2)).toContain("ask");
    expect(single.request).toMatchObject({
      sessionId,
      mode: "form",
      message: "Which database?",
      requestedSchema: { type: "object", properties: { answer: { type: "string", enum: ["Postgres", "SQLite", "None"] } }, required: ["answer"] },
    });
    expect(single.request?.toolCallId).toMatch(/^ask_/);
    expect(single.text).toBe('The user chose: "SQLite"');

    const several = await ask({ question: "Which targets?", choices: ["linux", "mac", "windows"], multiple: true }, () => ({ action: "accept", content: { answer: ["linux", "windows"] } }));
    expect(several.request?.requestedSchema).toEqual({
      type: "object",
      properties: { answer: { type: "array", title: "Choose any", items: { type: "string", enum: ["linux", "mac", "windows"] }, maxItems: 3 } },
      required: ["answer"],
    });
    expect(several.text).toBe('The user chose: "linux", "windows"');
    expect((await ask({ question: "Which?", choices: ["a", "b"], multiple: true }, () => ({ action: "accept", content: { answer: [] } }))).text).toBe("The user chose none of the choices.");

    const free = await ask({ question: "What should the release be called?" }, () => ({ action: "accept", content: { answer: "Blue Heron\nv2" } }));
    expect(free.request?.requestedSchema).toMatchObject({ properties: { answer: { type: "string", minLength: 1, maxLength: 8000 } } });
    expect(free.text).toBe("The user answered:\nBlue Heron\nv2");

    expect((await ask({ question: "Go on?", choices: ["yes", "no"] }, () => ({ action: "decline" }))).text).toBe("The user declined to answer the question.");
    expect((await ask({ question: "Go on?", choices: ["yes", "no"] }, () => ({ action: "cancel" }))).text).toBe("The user dismissed the question without answering.");
    // Extra fields never reach the model; the answer does.
    const extra = await ask({ question: "Pick", choices: ["x", "y"] }, () => ({ action: "accept", content: { answer: "y", note: MARKER }, _meta: { m: MARKER } }));
    expect(extra.text).toBe('The user chose: "y"');
  }, 60_000);

  test("a question and its choices reach the client without control characters, as titles do; line breaks stay in a question", async () => {
    const hostile = await ask(
      { question: "Deploy\u001b[2J\u001b[31m now?\r\nReally\u202e\u0007?", choices: ["yes\u001b[0m", "no\nway"] },
      () => ({ action: "accept", content: { answer: "yes [0m" } }),
    );
    expect(hostile.request?.message).toBe("Deploy [2J [31m now?\nReally  ?");
    expect(hostile.request?.requestedSchema).toMatchObject({ properties: { answer: { enum: ["yes [0m", "no way"] } } });
    expect(JSON.stringify(hostile.request)).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(hostile.text).toBe('The user chose: "yes [0m"');
  }, 60_000);

  test("hostile answers are checked against the form: the model is told it did not fit, never shown it", async () => {
    const cases: Array<[Record<string, unknown>, unknown]> = [
      [{ question: "Pick", choices: ["x", "y"] }, { action: "accept", content: { answer: MARKER } }],
      [{ question: "Pick", choices: ["x", "y"] }, { action: "accept", content: { answer: ["x"] } }],
      [{ question: "Pick", choices: ["x", "y"] }, { action: "accept", content: { answer: 1 } }],
      [{ question: "Pick", choices: ["x", "y"] }, { action: "accept", content: {} }],
      [{ question: "Pick", choices: ["x", "y"] }, { action: "accept" }],
      [{ question: "Pick", choices: ["x", "y"] }, { action: "accept", content: { answer: { toString: MARKER } } }],
      [{ question: "Pick", choices: ["x", "y"], multiple: true }, { action: "accept", content: { answer: ["x", "x"] } }],
      [{ question: "Pick", choices: ["x", "y"], multiple: true }, { action: "accept", content: { answer: ["x", MARKER] } }],
      [{ question: "Pick", choices: ["x", "y"], multiple: true }, { action: "accept", content: { answer: "x" } }],
      [{ question: "Pick", choices: ["x", "y"], multiple: true }, { action: "accept", content: { answer: Array.from({ length: 500 }, () => "x") } }],
      [{ question: "Say" }, { action: "accept", content: { answer: `${MARKER}${"z".repeat(9000)}` } }],
      [{ question: "Say" }, { action: "accept", content: { answer: "   " } }],
      [{ question: "Say" }, { action: "accept", content: { answer: [MARKER] } }],
      [{ question: "Say" }, { action: `_${MARKER}` }],
      [{ question: "Say" }, { action: "ACCEPT", content: { answer: MARKER } }],
      [{ question: "Say" }, {}],
    ];
    for (const [input, response] of cases) {
      const result = await ask(input, () => response);
      // Read and refused by the agent (not a failed request): the reason names what did not fit.
      expect({ response, text: result.text }).toMatchObject({ text: expect.stringMatching(/^The question got no usable answer: the client('s answer|'s response| accepted)/) });
      expect(result.text).not.toContain(MARKER);
      expect(result.stopReason).toBe("end_turn");
    }
    // A client that fails the request: the model is told, the turn goes on.
    const failing = await ask({ question: "Say" }, () => {
      throw new Error("no form here");
    });
    expect(failing.text).toMatch(/^The question got no usable answer: the client could not show the question/);
    // Invalid questions from the model never reach the client.
    const before = asked.length;
    for (const input of [{ question: "" }, { question: "x", choices: ["only"] }, { question: "x", choices: ["a", "a"] }, { question: "x", multiple: true }, { question: "x".repeat(2001) }]) {
      const id = `bad_${server.requests.length}`;
      server.push({ toolCalls: [{ id, name: "ask", input }] }, { text: "ok" });
      await client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "ask badly" }] });
      expect(told(server).get(id)).toContain("Invalid arguments for ask");
    }
    expect(asked.length).toBe(before);
  }, 90_000);

  test("cancelling the turn cancels the pending question with $/cancel_request", async () => {
    let cancelled!: () => void;
    const sawCancel = new Promise<void>((resolve) => (cancelled = resolve));
    const id = `wait_${server.requests.length}`;
    answer = (_params, signal) =>
      new Promise((resolve) => {
        signal.addEventListener("abort", () => {
          cancelled();
          resolve({ action: "cancel" });
        });
      });
    server.push({ toolCalls: [{ id, name: "ask", input: { question: "Are you there?" } }] });
    const turn = client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "ask and wait" }] });
    await waitFor(() => client.clientRequests.includes("elicitation/create") && asked.at(-1)?.message === "Are you there?", 20_000, "the question");
    await client.agent.notify(methods.agent.session.cancel, { sessionId });
    expect((await turn).stopReason).toBe("cancelled");
    await sawCancel;
    expect(client.received.some((m) => m.method === "$/cancel_request")).toBe(true);
  }, 60_000);

  test("a client without elicitation.form is not offered ask; a call to it anyway is an unknown tool", async () => {
    const other = spawnAgent(runtime, ["agent", "stdio"], { env: { ACP_EDGE_HOME: sandbox.home, LOCAL_KEY: "sk-test-ask-0000" } });
    const plain = connectClient(other);
    try {
      await initialize(plain, { elicitation: { url: {} } });
      const { sessionId: id } = await plain.agent.request(methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] });
      server.push({ toolCalls: [{ id: "no_ask", name: "ask", input: { question: "x?" } }] }, { text: "ok" });
      await plain.agent.request(methods.agent.session.prompt, { sessionId: id, prompt: [{ type: "text", text: "ask" }] });
      expect(offered(server, server.requests.length - 2)).not.toContain("ask");
      expect(offered(server, server.requests.length - 2)).toContain("read");
      expect(told(server).get("no_ask")).toContain("Tool ask not found");
      expect(plain.clientRequests).not.toContain("elicitation/create");
    } finally {
      plain.close();
      other.child.kill("SIGKILL");
    }
  }, 60_000);
});
