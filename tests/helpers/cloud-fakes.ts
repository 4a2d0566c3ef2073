/**
 * The credentials side of the clouds, for end-to-end tests: a service
 * account with a fresh RSA key whose file sends the token exchange to the
 * fake server, and one `answer` hook for the fake model server that plays
 * the token endpoint and refuses requests the real cloud would refuse
 * (a wrong key, a bad SigV4 signature, a missing or unknown access token).
 * @module
 */
import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { googleError, bedrockError, sigV4Problem, tokenExchangeProblem } from "./fake-cloud-wire.ts";
import type { DirectAnswer, RecordedRequest } from "./fake-model-server.ts";

export const GEMINI_KEY = "AIza-e2e-PLANTED-gemini-3f9a1c7e";
export const AZURE_KEY = "azure-e2e-PLANTED-key-8b2d4f6a0c";
/** An Entra ID access token for Azure: sent as a bearer token instead of `api-key`. */
export const AZURE_ENTRA_TOKEN = "eyJ-e2e-PLANTED-entra-token-6c5b4a39";
export const AWS_KEY_ID = "AKIAE2EPLANTED0001";
export const AWS_SECRET = "aws-e2e-PLANTED-secret-5d7f9b1e3a";
export const ACCESS_TOKEN = "ya29.e2e-PLANTED-access-token-1a2b3c4d";
export const AWS_REGION = "us-west-2";
/** A Bedrock API key: sent as a bearer token instead of a signature. */
export const BEDROCK_API_KEY = "ABSK-e2e-PLANTED-bedrock-key-9e8d7c6b";

/** A service account: its key pair, and a credentials file outside every folder the agent writes. */
export interface ServiceAccount {
  file: string;
  publicKey: KeyObject;
  /** A slice of the private key's body: must never appear anywhere. */
  privateKeyMarker: string;
  /** Writes another credentials file (malformed ones) beside it; returns its path. */
  writeOther(name: string, content: string): string;
  cleanup(): void;
}

export function makeServiceAccount(tokenUri: string): ServiceAccount {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  const dir = mkdtempSync(join(tmpdir(), "acp-edge-gcp-"));
  const file = join(dir, "service-account.json");
  writeFileSync(
    file,
    JSON.stringify({
      type: "service_account",
      project_id: "e2e-project",
      private_key_id: "e2e-key-id",
      private_key: pem,
      client_email: "agent@e2e-project.iam.gserviceaccount.com",
      client_id: "1234567890",
      token_uri: tokenUri,
    }),
  );
  const body = pem.split("\n")[5]!;
  return {
    file,
    publicKey,
    privateKeyMarker: body.slice(0, 40),
    writeOther: (name, content) => {
      const path = join(dir, name);
      writeFileSync(path, content);
      return path;
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** What the fake clouds expect; the hook answers the token exchange and refuses what does not match. */
export function cloudAnswers(expect: { publicKey?: KeyObject; tokenUri?: string; awsSecret?: string }) {
  let exchanges = 0;
  const answer = (request: RecordedRequest, rawBody: string, rawPath: string): DirectAnswer | undefined => {
    const path = request.path;
    if (path === "/token") {
      exchanges++;
      const problem = expect.publicKey && expect.tokenUri ? tokenExchangeProblem(rawBody, expect.publicKey, expect.tokenUri) : "invalid_client";
      if (problem) {
        const [error, description = ""] = problem.split(": ");
        return { status: 400, body: { error, error_description: description } };
      }
      return { status: 200, body: { access_token: ACCESS_TOKEN, expires_in: 3600, token_type: "Bearer" } };
    }
    if (path.startsWith("/v1/projects/")) {
      if (request.headers.authorization !== `Bearer ${ACCESS_TOKEN}`) return { status: 401, body: googleError(401, "Request had invalid authentication credentials.") };
    } else if (path.startsWith("/v1beta/models/")) {
      if (request.headers["x-goog-api-key"] !== GEMINI_KEY) return { status: 400, body: googleError(400, "API key not valid. Please pass a valid API key.") };
    } else if (path.startsWith("/model/")) {
      if (request.headers.authorization?.startsWith("Bearer ")) {
        if (request.headers.authorization === `Bearer ${BEDROCK_API_KEY}`) return undefined;
        return { status: 403, ...bedrockError(403, "Authentication failed: invalid API key.") };
      }
      const problem = sigV4Problem(request, rawBody, rawPath, { accessKeyId: AWS_KEY_ID, secretAccessKey: expect.awsSecret ?? AWS_SECRET, region: AWS_REGION });
      if (problem) {
        const { body, headers } = bedrockError(403, problem);
        return { status: 403, body, headers: { ...headers, "x-amzn-errortype": "InvalidSignatureException" } };
      }
    } else if (path.startsWith("/openai/deployments/")) {
      const entra = request.headers.authorization === `Bearer ${AZURE_ENTRA_TOKEN}` && request.headers["api-key"] === undefined;
      if (request.headers["api-key"] !== AZURE_KEY && !entra) return { status: 401, body: { error: { code: "401", message: "Access denied due to invalid subscription key or wrong API endpoint." } } };
    }
    return undefined;
  };
  return { answer, exchanges: () => exchanges };
}
