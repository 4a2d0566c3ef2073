/**
 * The clouds' kinds under bad configuration, on every runtime: missing
 * credentials name what to set; a malformed service-account file, a token
 * endpoint that cannot be reached or refuses, and a request whose SigV4
 * signature the cloud rejects each fail the prompt with a specific reason;
 * a region that tries to choose the host is refused before any request.
 * No secret, key material or hostile value appears in any answer.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { acp, connectClient, initialize } from "../helpers/acp-client.ts";
import { makeSandbox, runAgentCommand, RUNTIMES, spawnAgent, type Sandbox } from "../helpers/agent-process.ts";
import { AWS_KEY_ID, AWS_REGION, AZURE_KEY, cloudAnswers, makeServiceAccount, type ServiceAccount } from "../helpers/cloud-fakes.ts";
import { rpcError } from "../helpers/expect-error.ts";
import { startFakeModelServer, type FakeModelServer } from "../helpers/fake-model-server.ts";

const { methods } = acp;
const NO_WAY_OUT = { HTTPS_PROXY: "http://127.0.0.1:9", HTTP_PROXY: "http://127.0.0.1:9", NO_PROXY: "127.0.0.1", AWS_EC2_METADATA_DISABLED: "true" };
const WRONG_SECRET = "aws-e2e-PLANTED-wrong-secret-2c4e6a8b";
const HOSTILE_REGION = "us-east-1.evil.example/steal?";

/** A port nothing listens on: taken, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

for (const runtime of RUNTIMES) {
  describe(`${runtime}: clouds misconfigured`, () => {
    let server: FakeModelServer;
    let account: ServiceAccount;
    let hook: ReturnType<typeof cloudAnswers>;
    const sandboxes: Sandbox[] = [];

    beforeAll(async () => {
      server = await startFakeModelServer([], { answer: (...args) => hook.answer(...args) });
      account = makeServiceAccount(`${server.url}/token`);
      hook = cloudAnswers({ publicKey: account.publicKey, tokenUri: `${server.url}/token` });
    });
    afterAll(async () => {
      await server.close();
      account.cleanup();
      for (const sandbox of sandboxes) sandbox.cleanup();
    });

    /** Starts the agent with `model`, `env` and `settings`; returns the error of `session/new` or of the first prompt. */
    async function failure(model: string, env: Record<string, string>, settings: Record<string, unknown> = {}, at: "new" | "prompt" = "prompt") {
      const sandbox = makeSandbox();
      sandboxes.push(sandbox);
      writeFileSync(join(sandbox.home, "settings.json"), JSON.stringify({ maxRetries: 0, ...settings }));
      const proc = spawnAgent(runtime, ["agent", "stdio", "--model", model], { env: { ACP_EDGE_HOME: sandbox.home, ...NO_WAY_OUT, ...env } });
      try {
        const client = connectClient(proc);
        await initialize(client);
        const created = client.agent.request(methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] });
        if (at === "new") return { error: await rpcError(created, -32000), stderr: proc.stderr() };
        const { sessionId } = await created;
        const error = await rpcError(client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hi" }] }), -32603);
        return { error, stderr: proc.stderr() };
      } finally {
        proc.child.kill("SIGKILL");
      }
    }

    test("missing credentials name what to set, for each cloud", async () => {
      const vertex = await failure("vertex/claude-sonnet-4-5@20250929", {}, {}, "new");
      expect(vertex.error.message).toContain("GOOGLE_APPLICATION_CREDENTIALS");
      expect(vertex.error.message).toContain("gcloud auth application-default login");
      const bedrock = await failure("bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0", {}, {}, "new");
      expect(bedrock.error.message).toContain("AWS_BEARER_TOKEN_BEDROCK");
      expect(bedrock.error.message).toContain("AWS_PROFILE");
      const google = await failure("google/gemini-2.5-flash", {}, {}, "new");
      expect(google.error.message).toContain("GOOGLE_GENERATIVE_AI_API_KEY");
      const azure = await failure("azure/team-gpt", {}, {}, "new");
      expect(azure.error.message).toContain("AZURE_API_KEY");
    });

    test("a region that would choose the host is refused before any request, and not echoed", async () => {
      const before = server.requests.length;
      const { error } = await failure(
        "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        { AWS_REGION: HOSTILE_REGION, AWS_ACCESS_KEY_ID: AWS_KEY_ID, AWS_SECRET_ACCESS_KEY: WRONG_SECRET },
        {},
        "new",
      );
      expect(error.message).toContain("AWS_REGION");
      expect(error.message).toContain("not valid");
      expect(error.message).not.toContain("evil");
      expect(server.requests.length).toBe(before);
    });

    test("a region in settings.json is refused when the settings are read, and not echoed", async () => {
      const sandbox = makeSandbox();
      sandboxes.push(sandbox);
      const settings = { providers: { aws: { api: "bedrock", region: HOSTILE_REGION, models: [{ id: "m" }] } } };
      writeFileSync(join(sandbox.home, "settings.json"), JSON.stringify(settings));
      const { code, stdout, stderr } = await runAgentCommand(runtime, ["agent", "stdio", "--model", "aws/m"], { env: { ACP_EDGE_HOME: sandbox.home, ...NO_WAY_OUT } });
      expect(code).toBe(2);
      expect(stdout).toBe("");
      expect(stderr).toContain("providers.aws.region: must be a name of letters, digits and hyphens, such as us-east-1");
      expect(stderr).not.toContain("evil");
    });

    const vertexModel = "gcp/claude-sonnet-4-5@20250929";
    const vertexSettings = () => ({ providers: { gcp: { api: "vertex", baseUrl: `${server.url}/v1/projects/e2e-project/locations/us-east5` } } });

    test("a malformed service-account file says what is wrong with it, never what it holds", async () => {
      const notJson = account.writeOther("not-json.json", "{ PLANTED-FILE-CONTENT this is not json");
      const one = await failure(vertexModel, { GOOGLE_APPLICATION_CREDENTIALS: notJson }, vertexSettings());
      expect(one.error.message).toContain("credentials file is not usable: it is not JSON");
      const badKey = account.writeOther(
        "bad-key.json",
        JSON.stringify({ type: "service_account", client_email: "a@b.iam.gserviceaccount.com", private_key: "-----BEGIN PRIVATE KEY-----\nPLANTEDnotakey\n-----END PRIVATE KEY-----\n", token_uri: `${server.url}/token` }),
      );
      const two = await failure(vertexModel, { GOOGLE_APPLICATION_CREDENTIALS: badKey }, vertexSettings());
      expect(two.error.message).toContain(`"private_key" is not a PKCS #8 RSA key`);
      const noEmail = account.writeOther("no-email.json", JSON.stringify({ type: "service_account", private_key: "x" }));
      const three = await failure(vertexModel, { GOOGLE_APPLICATION_CREDENTIALS: noEmail }, vertexSettings());
      expect(three.error.message).toContain(`"client_email" field is missing`);
      for (const { error, stderr } of [one, two, three]) {
        expect(JSON.stringify(error) + stderr).not.toContain("PLANTED");
      }
    });

    test("a token endpoint that cannot be reached, or refuses the assertion, fails the prompt with the reason", async () => {
      const port = await closedPort();
      const unreachable = account.writeOther("unreachable.json", JSON.stringify({ ...serviceAccountJson(account), token_uri: `http://127.0.0.1:${port}/token` }));
      const one = await failure(vertexModel, { GOOGLE_APPLICATION_CREDENTIALS: unreachable }, vertexSettings());
      expect(one.error.message).toContain(`cannot reach the Google token endpoint 127.0.0.1:${port}`);
      // Signed with another key than the one the endpoint knows for this account.
      const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
      const impostor = account.writeOther(
        "impostor.json",
        JSON.stringify({ ...serviceAccountJson(account), private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString() }),
      );
      const two = await failure(vertexModel, { GOOGLE_APPLICATION_CREDENTIALS: impostor }, vertexSettings());
      expect(two.error.message).toContain("refused the credentials: HTTP 400 — invalid_grant: Invalid JWT Signature.");
      for (const { error, stderr } of [one, two]) expect(JSON.stringify(error) + stderr).not.toContain(account.privateKeyMarker);
    });

    test("a signature Bedrock rejects fails the prompt with Bedrock's words, and the secret shows nowhere", async () => {
      const { error, stderr } = await failure("bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0", {
        AWS_ACCESS_KEY_ID: AWS_KEY_ID,
        AWS_SECRET_ACCESS_KEY: WRONG_SECRET,
        AWS_REGION,
        AWS_ENDPOINT_URL_BEDROCK_RUNTIME: server.url,
      });
      expect(error.message).toContain("The request signature we calculated does not match");
      expect(error.message).toContain("403");
      expect(JSON.stringify(error) + stderr).not.toContain(WRONG_SECRET);
    });

    test("a key Azure refuses fails the prompt with Azure's words", async () => {
      const { error, stderr } = await failure("azure/team-gpt", { AZURE_API_KEY: `${AZURE_KEY}-wrong`, AZURE_OPENAI_BASE_URL: `${server.url}/openai` });
      expect(error.message).toContain("401");
      expect(error.message).toContain("invalid subscription key");
      expect(JSON.stringify(error) + stderr).not.toContain(`${AZURE_KEY}-wrong`);
    });
  });
}

/** The account's own credentials file, as an object to vary. */
function serviceAccountJson(account: ServiceAccount): Record<string, unknown> {
  return JSON.parse(readFileSync(account.file, "utf8"));
}
