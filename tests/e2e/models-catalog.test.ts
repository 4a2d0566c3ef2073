/**
 * The model catalogue from models.dev, through the CLI on each runtime:
 * `acp-edge models --all` lists hundreds of models of many providers (whole,
 * through a pipe: the listing is long enough that an exit before it drained
 * cut it short), `acp-edge models` only what has credentials, and a user with
 * only a Groq key gets a session on a Groq model, with the catalogue's context
 * window and price, through the OpenAI-compatible preset.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { agentText, connectClient, initialize, acp } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES, runAgentCommand, spawnAgent, type Sandbox } from "../helpers/agent-process.ts";
import { startFakeModelServer, type FakeModelServer } from "../helpers/fake-model-server.ts";

const { methods } = acp;
const GROQ_KEY = "gsk-test-NEVER-PRINT-3b9d0c1e";
const ROW = /^([^/\s]+)\/(\S+)\s+(\d+)k\s+(\S+)\s+(yes|no)/;

for (const runtime of RUNTIMES) {
  describe(`${runtime}: the model catalogue`, () => {
    let sandbox: Sandbox;
    let server: FakeModelServer;

    beforeAll(async () => {
      sandbox = makeSandbox();
      server = await startFakeModelServer();
    });
    afterAll(async () => {
      await server.close();
      sandbox.cleanup();
    });

    test("models --all lists hundreds of models of at least eight providers, whole, every time", async () => {
      // Three runs: a listing cut short by the exit was cut at a different place each time, not every time.
      for (let run = 0; run < 3; run++) {
        const { code, stdout } = await runAgentCommand(runtime, ["models", "--all"], { env: { ACP_EDGE_HOME: sandbox.home } });
        expect(code).toBe(0);
        const lines = stdout.trimEnd().split("\n");
        const rows = lines.filter((line) => ROW.test(line));
        const providers = new Set(rows.map((line) => ROW.exec(line)![1]));
        expect(rows.length).toBeGreaterThanOrEqual(300);
        expect(providers.size).toBeGreaterThanOrEqual(8);
        for (const name of ["anthropic", "openai", "openrouter", "groq", "deepseek", "mistral", "xai", "together", "fireworks", "google", "bedrock", "vertex", "azure"]) {
          expect(providers.has(name)).toBe(true);
        }
        expect(lines.at(-1)).toBe(`${rows.length} models of ${providers.size} providers.`);
        // Offline scripted models are there, as in the short listing.
        expect(providers.has("faux")).toBe(true);
        expect(rows.find((line) => line.startsWith("anthropic/claude-sonnet-4-5 "))).toMatch(/\s200k\s+\$3\/\$15\s+no/);
        expect(rows.find((line) => line.startsWith("openai/gpt-5 "))).toMatch(/\s400k\s+\$1\.25\/\$10\s+no/);
      }
    });

    test("models lists the built-in providers and the presets that have a key: a Groq key adds Groq's models, and is never shown", async () => {
      const { code, stdout } = await runAgentCommand(runtime, ["models"], { env: { ACP_EDGE_HOME: sandbox.home, GROQ_API_KEY: GROQ_KEY } });
      expect(code).toBe(0);
      const rows = stdout.split("\n").filter((line) => ROW.test(line));
      const providers = new Set(rows.map((line) => ROW.exec(line)![1]));
      // The built-in providers (the clouds among them) are listed with or without credentials; a preset only with its key.
      expect([...providers].sort()).toEqual(["anthropic", "azure", "bedrock", "faux", "google", "groq", "openai", "vertex"]);
      expect(rows.filter((line) => line.startsWith("groq/")).every((line) => line.includes("yes (environment)"))).toBe(true);
      expect(rows.filter((line) => line.startsWith("anthropic/")).every((line) => line.includes("no — run `acp-edge login"))).toBe(true);
      expect(stdout).not.toContain(GROQ_KEY);
    });

    test("with only GROQ_API_KEY a session runs on a Groq model with the catalogue's window and price", async () => {
      const proc = spawnAgent(runtime, ["agent", "stdio"], {
        env: { ACP_EDGE_HOME: sandbox.home, GROQ_API_KEY: GROQ_KEY, GROQ_BASE_URL: `${server.url}/v1` },
      });
      try {
        const client = connectClient(proc);
        await initialize(client);
        const { sessionId, configOptions } = await client.agent.request(methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] });
        const model = configOptions?.find((o) => o.id === "model") as { currentValue?: string } | undefined;
        expect(model?.currentValue).toBe("groq/llama-3.1-8b-instant");
        server.push({ text: "Hello from Groq.", usage: { input: 1_000_000, output: 1_000_000 } });
        const { stopReason } = await client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Hi" }] });
        expect(stopReason).toBe("end_turn");
        expect(agentText(client.updates(sessionId))).toBe("Hello from Groq.");
        const sent = server.requests.at(-1)!;
        expect(sent.path).toBe("/v1/chat/completions");
        expect(sent.headers.authorization).toBe(`Bearer ${GROQ_KEY}`);
        expect(sent.body.model).toBe("llama-3.1-8b-instant");
        const usage = client.updates(sessionId).filter((u) => u.sessionUpdate === "usage_update");
        expect(usage[0]).toMatchObject({ size: 131_072 });
        // models.dev's price of that model: $0.05 in, $0.08 out per million tokens.
        expect((usage.at(-1) as { cost: { amount: number } }).cost.amount).toBeCloseTo(0.05 + 0.08, 6);
        expect(proc.stderr()).not.toContain(GROQ_KEY);
      } finally {
        proc.child.kill("SIGKILL");
      }
    });
  });
}
