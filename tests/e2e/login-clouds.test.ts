/**
 * `acp-edge login` for the clouds, on each runtime, against the fakes: a
 * Gemini key and a Bedrock API key are checked with one small request and
 * stored; an Azure key is checked against the deployment the user names at
 * the resource `AZURE_OPENAI_BASE_URL` points to; a refused key stores
 * nothing; Vertex explains that it uses Application Default Credentials and
 * stores nothing. The key is never printed. The menu on a terminal offers
 * every cloud.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeSandbox, RUNTIMES, runAgentCommand, type RuntimeName, type Sandbox } from "../helpers/agent-process.ts";
import { AZURE_KEY, BEDROCK_API_KEY, cloudAnswers, GEMINI_KEY } from "../helpers/cloud-fakes.ts";
import { startFakeModelServer, type FakeModelServer } from "../helpers/fake-model-server.ts";

let fake: FakeModelServer;
beforeAll(async () => {
  const hook = cloudAnswers({});
  fake = await startFakeModelServer([], { answer: (...args) => hook.answer(...args) });
});
afterAll(async () => await fake.close());

describe.each(RUNTIMES)("cloud login on %s", (runtime: RuntimeName) => {
  // Each test logs in to a home of its own.
  const homes: Sandbox[] = [];
  afterAll(() => homes.forEach((home) => home.cleanup()));
  let sandbox: Sandbox;
  let authPath: string;
  const freshHome = () => {
    sandbox = makeSandbox();
    homes.push(sandbox);
    authPath = join(sandbox.home, "auth.json");
  };

  const env = () => ({
    ACP_EDGE_HOME: sandbox.home,
    GOOGLE_GEMINI_BASE_URL: `${fake.url}/v1beta`,
    AWS_ENDPOINT_URL_BEDROCK_RUNTIME: fake.url,
    AWS_REGION: "us-west-2",
    AZURE_OPENAI_BASE_URL: `${fake.url}/openai`,
  });
  const login = (args: string[], key: string) => runAgentCommand(runtime, ["login", ...args], { env: env(), input: `${key}\n` });
  const stored = () => JSON.parse(readFileSync(authPath, "utf8"));

  test("a Gemini key, a Bedrock API key and an Azure key are each checked, then stored; never printed", async () => {
    freshHome();
    fake.push({ text: "OK" }, { text: "OK" }, { text: "OK" });
    const before = fake.requests.length;
    const google = await login(["--provider", "google"], GEMINI_KEY);
    expect(google.code).toBe(0);
    const bedrock = await login(["--provider", "bedrock"], BEDROCK_API_KEY);
    expect(bedrock.code).toBe(0);
    const azure = await login(["--provider", "azure", "--model", "team-gpt"], AZURE_KEY);
    expect(azure.code).toBe(0);
    expect(stored()).toEqual({
      google: { type: "api_key", key: GEMINI_KEY },
      bedrock: { type: "api_key", key: BEDROCK_API_KEY },
      azure: { type: "api_key", key: AZURE_KEY },
    });
    const paths = fake.requests.slice(before).map((r) => r.path);
    expect(paths).toEqual([
      "/v1beta/models/gemini-2.5-flash:streamGenerateContent",
      "/model/us.anthropic.claude-haiku-4-5-20251001-v1%3A0/converse-stream",
      "/openai/deployments/team-gpt/chat/completions",
    ]);
    for (const [result, key] of [[google, GEMINI_KEY], [bedrock, BEDROCK_API_KEY], [azure, AZURE_KEY]] as const) {
      expect(result.stdout + result.stderr).not.toContain(key);
    }
  });

  test("a refused Bedrock key stores nothing and says why; Azure without a deployment asks for one", async () => {
    freshHome();
    const refused = await login(["--provider", "bedrock"], `${BEDROCK_API_KEY}-wrong`);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("The key was refused by bedrock");
    expect(refused.stdout + refused.stderr).not.toContain(`${BEDROCK_API_KEY}-wrong`);
    const azure = await login(["--provider", "azure"], AZURE_KEY);
    expect(azure.code).toBe(2);
    expect(azure.stderr).toContain("--model DEPLOYMENT");
    expect(existsSync(authPath)).toBe(false);
  });

  test("vertex has no key to store: the answer says how its credentials are found", async () => {
    freshHome();
    const result = await login(["--provider", "vertex"], "anything");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("gcloud auth application-default login");
    expect(result.stderr).toContain("GOOGLE_APPLICATION_CREDENTIALS");
    expect(existsSync(authPath)).toBe(false);
  });
});
