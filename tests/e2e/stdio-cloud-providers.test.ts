/**
 * The clouds' provider kinds end to end: the CLI on each runtime completes a
 * turn with a tool call through `google` (the Gemini API), `vertex` (Claude
 * through Anthropic on Vertex, and Gemini, with a service-account file whose
 * token exchange the fake answers), `bedrock` (Converse's binary event
 * stream, every request's SigV4 signature recomputed) and `azure` (the
 * deployments path with `api-key`, or an Entra token as a bearer token). All outbound traffic but the fake's goes
 * to a proxy that does not exist, so the fake token endpoint is the only one
 * the agent can reach. No key, secret, private key or access token reaches
 * stdout, debug stderr or a file of the agent's.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { acp, agentText, connectStream, initialize, type TestClient } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES, spawnAgent, type AgentProcess, type Sandbox } from "../helpers/agent-process.ts";
import {
  ACCESS_TOKEN,
  AWS_KEY_ID,
  AWS_REGION,
  AWS_SECRET,
  AZURE_ENTRA_TOKEN,
  AZURE_KEY,
  cloudAnswers,
  GEMINI_KEY,
  makeServiceAccount,
  type ServiceAccount,
} from "../helpers/cloud-fakes.ts";
import { startFakeModelServer, type FakeModelServer, type RecordedRequest } from "../helpers/fake-model-server.ts";

const { methods } = acp;

/** Nothing but 127.0.0.1 is reachable: every other request goes to a proxy port nobody listens on. */
const NO_WAY_OUT = { HTTPS_PROXY: "http://127.0.0.1:9", HTTP_PROXY: "http://127.0.0.1:9", NO_PROXY: "127.0.0.1", AWS_EC2_METADATA_DISABLED: "true" };

interface CloudCase {
  name: string;
  model: string;
  env(server: FakeModelServer, account: ServiceAccount): Record<string, string>;
  settings(server: FakeModelServer): Record<string, unknown>;
  /** Keys stored in the agent's auth.json. */
  auth?: Record<string, { type: "api_key"; key: string }>;
  /** The model request's path, and what else it must carry. */
  path: string;
  check?(request: RecordedRequest): void;
  contextWindow: number;
  price?: { input: number; output: number };
}

const CASES: CloudCase[] = [
  {
    name: "google (Gemini API)",
    model: "google/gemini-2.5-flash",
    env: (server) => ({ GEMINI_API_KEY: GEMINI_KEY, GOOGLE_GEMINI_BASE_URL: `${server.url}/v1beta` }),
    settings: () => ({}),
    path: "/v1beta/models/gemini-2.5-flash:streamGenerateContent",
    contextWindow: 1_048_576,
    price: { input: 0.3, output: 2.5 },
  },
  {
    name: "vertex (Claude through Anthropic on Vertex)",
    model: "gcp/claude-sonnet-4-5@20250929",
    env: (_server, account) => ({ GOOGLE_APPLICATION_CREDENTIALS: account.file }),
    settings: (server) => ({ providers: { gcp: { api: "vertex", baseUrl: `${server.url}/v1/projects/e2e-project/locations/us-east5` } } }),
    path: "/v1/projects/e2e-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict",
    check: (request) => expect(request.body.anthropic_version).toBe("vertex-2023-10-16"),
    contextWindow: 200_000,
    price: { input: 3, output: 15 },
  },
  {
    name: "vertex (Gemini)",
    model: "gcp/gemini-2.5-pro",
    env: (_server, account) => ({ GOOGLE_APPLICATION_CREDENTIALS: account.file }),
    settings: (server) => ({ providers: { gcp: { api: "vertex", baseUrl: `${server.url}/v1/projects/e2e-project/locations/global` } } }),
    path: "/v1/projects/e2e-project/locations/global/publishers/google/models/gemini-2.5-pro:streamGenerateContent",
    contextWindow: 1_048_576,
    price: { input: 1.25, output: 10 },
  },
  {
    name: "bedrock (Claude through Converse, SigV4)",
    model: "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
    env: (server) => ({ AWS_ACCESS_KEY_ID: AWS_KEY_ID, AWS_SECRET_ACCESS_KEY: AWS_SECRET, AWS_REGION, AWS_ENDPOINT_URL_BEDROCK_RUNTIME: server.url }),
    settings: () => ({}),
    path: "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream",
    check: (request) => expect(request.headers.authorization).toStartWith(`AWS4-HMAC-SHA256 Credential=${AWS_KEY_ID}/`),
    contextWindow: 200_000,
    price: { input: 3, output: 15 },
  },
  {
    name: "azure (deployment, api-key)",
    model: "azure/team-gpt",
    env: (server) => ({ AZURE_API_KEY: AZURE_KEY, AZURE_OPENAI_BASE_URL: `${server.url}/openai` }),
    settings: () => ({ models: { "azure/team-gpt": { contextWindow: 400_000, price: { input: 1.25, output: 10 } } } }),
    path: "/openai/deployments/team-gpt/chat/completions",
    check: (request) => expect(request.headers["api-key"]).toBe(AZURE_KEY),
    contextWindow: 400_000,
    price: { input: 1.25, output: 10 },
  },
  {
    // An Entra token in the environment does not turn the stored key into a bearer token.
    name: "azure (deployment, key in auth.json, an Entra token in the environment)",
    model: "azure/team-gpt",
    env: (server) => ({ AZURE_AD_TOKEN: AZURE_ENTRA_TOKEN, AZURE_OPENAI_BASE_URL: `${server.url}/openai` }),
    settings: () => ({ models: { "azure/team-gpt": { contextWindow: 400_000 } } }),
    auth: { azure: { type: "api_key", key: AZURE_KEY } },
    path: "/openai/deployments/team-gpt/chat/completions",
    check: (request) => {
      expect(request.headers["api-key"]).toBe(AZURE_KEY);
      expect(request.headers.authorization).toBeUndefined();
    },
    contextWindow: 400_000,
  },
  {
    name: "azure (resource name, Entra token)",
    model: "team/team-gpt",
    env: () => ({ TEAM_ENTRA_TOKEN: AZURE_ENTRA_TOKEN }),
    settings: (server) => ({
      providers: { team: { api: "azure", baseUrl: `${server.url}/openai`, apiKeyEnv: "TEAM_ENTRA_TOKEN", auth: "entra", apiVersion: "2025-04-01-preview", models: [{ id: "team-gpt" }] } },
    }),
    path: "/openai/deployments/team-gpt/chat/completions",
    check: (request) => {
      expect(request.headers.authorization).toBe(`Bearer ${AZURE_ENTRA_TOKEN}`);
      expect(request.headers["api-key"]).toBeUndefined();
    },
    contextWindow: 128_000,
  },
];

/** Every file under `dir`. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

for (const runtime of RUNTIMES) {
  describe.each(CASES.map((c) => [c.name, c] as const))(`${runtime}: %s`, (_name, cloud) => {
    let sandbox: Sandbox;
    let server: FakeModelServer;
    let account: ServiceAccount;
    let proc: AgentProcess;
    let client: TestClient;
    let stdout = "";
    let collected: Promise<void>;
    let hook: ReturnType<typeof cloudAnswers>;

    beforeAll(async () => {
      sandbox = makeSandbox();
      sandbox.write("project/hello.txt", "hello world\n");
      server = await startFakeModelServer([], { answer: (...args) => hook.answer(...args) });
      account = makeServiceAccount(`${server.url}/token`);
      hook = cloudAnswers({ publicKey: account.publicKey, tokenUri: `${server.url}/token` });
      writeFileSync(join(sandbox.home, "settings.json"), JSON.stringify({ maxRetries: 0, ...cloud.settings(server) }));
      if (cloud.auth) writeFileSync(join(sandbox.home, "auth.json"), JSON.stringify(cloud.auth), { mode: 0o600 });
      proc = spawnAgent(runtime, ["agent", "stdio", "--model", cloud.model, "--log-level", "debug"], {
        env: { ACP_EDGE_HOME: sandbox.home, ...NO_WAY_OUT, ...cloud.env(server, account) },
      });
      const [forClient, forCheck] = proc.stdout.tee();
      collected = forCheck.pipeThrough(new TextDecoderStream()).pipeTo(new WritableStream({ write: (text) => void (stdout += text) }));
      client = connectStream(acp.ndJsonStream(proc.stdin, forClient));
      await initialize(client);
    });

    afterAll(async () => {
      proc.child.kill("SIGKILL");
      await server.close();
      account.cleanup();
      sandbox.cleanup();
    });

    test("a turn with a tool call completes, costed, and no secret shows anywhere", async () => {
      const { sessionId } = await client.agent.request(methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] });
      server.push(
        { thinking: "I should read the file.", toolCalls: [{ id: "call_1", name: "read", input: { path: "hello.txt" } }], usage: { input: 120, output: 30 } },
        { text: "The file says hello world.", usage: { input: 200, output: 12 } },
      );
      const { stopReason } = await client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "What does hello.txt say?" }] });
      expect(stopReason).toBe("end_turn");
      const updates = client.updates(sessionId);
      const call = updates.find((u) => u.sessionUpdate === "tool_call");
      expect(call).toMatchObject({ title: "Read hello.txt", kind: "read" });
      const done = updates.findLast((u) => u.sessionUpdate === "tool_call_update");
      expect(done).toMatchObject({ status: "completed" });
      expect(JSON.stringify(done)).toContain("hello world");
      expect(agentText(updates)).toBe("The file says hello world.");

      const models = server.requests.filter((r) => r.path === cloud.path);
      expect(models).toHaveLength(2);
      for (const request of models) cloud.check?.(request);
      // The second request carried the tool result back.
      expect(JSON.stringify(models[1]!.body)).toContain("hello world");
      if (cloud.name.startsWith("vertex")) {
        // One exchange at the file's token_uri served both requests.
        expect(hook.exchanges()).toBe(1);
        for (const request of models) expect(request.headers.authorization).toBe(`Bearer ${ACCESS_TOKEN}`);
      }

      const usage = updates.filter((u) => u.sessionUpdate === "usage_update");
      expect(usage).toHaveLength(2);
      expect(usage[0]).toMatchObject({ size: cloud.contextWindow });
      if (cloud.price) {
        const expected = ((120 + 200) * cloud.price.input + (30 + 12) * cloud.price.output) / 1e6;
        expect((usage[1] as { cost: { amount: number } }).cost.amount).toBeCloseTo(expected, 6);
      }

      // No secret on stdout, on debug stderr, or in any file of the agent's home.
      const secrets = [GEMINI_KEY, AZURE_KEY, AZURE_ENTRA_TOKEN, AWS_SECRET, ACCESS_TOKEN, account.privateKeyMarker];
      // auth.json is where a stored key belongs; no other file of the agent's may hold it.
      const files = filesUnder(sandbox.home).filter((file) => !(cloud.auth && file === join(sandbox.home, "auth.json")));
      expect(files.some((file) => file.endsWith(".jsonl"))).toBe(true);
      for (const secret of secrets) {
        expect(stdout).not.toContain(secret);
        expect(proc.stderr()).not.toContain(secret);
        for (const file of files) expect({ file, leaked: readFileSync(file, "utf8").includes(secret) }).toEqual({ file, leaked: false });
      }
    });
  });
}
