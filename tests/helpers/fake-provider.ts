/**
 * Settings that make the agent's default model one served by the fake model
 * server: provider `local` (OpenAI-compatible chat) at the server's URL, its
 * key (when it has one) read from an environment variable the test sets
 * (never a real key).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TestClient } from "./acp-client.ts";
import type { AgentProcess, Sandbox } from "./agent-process.ts";
import type { FakeModelServer } from "./fake-model-server.ts";

/** An agent in its sandbox whose model requests go to the fake model server, with its session open. */
export interface FakeProviderRun {
  sandbox: Sandbox;
  server: FakeModelServer;
  proc: AgentProcess;
  client: TestClient;
  sessionId: string;
}

/** A model of the fake provider as settings.json lists it. */
export interface FakeModel {
  id: string;
  name?: string;
  contextWindow?: number;
  input?: Array<"text" | "image">;
}

/** Writes `<home>/settings.json` with provider `local` at `server` (key from `keyEnv`, if any), its first model the default; `extra` adds settings. */
export function useFakeProvider(home: string, server: FakeModelServer, options: { keyEnv?: string; models?: FakeModel[]; extra?: Record<string, unknown> } = {}): void {
  const models = (options.models ?? [{ id: "m" }]).map((m) => ({ contextWindow: 32768, ...m }));
  writeFileSync(
    join(home, "settings.json"),
    JSON.stringify({
      defaultModel: `local/${models[0]!.id}`,
      maxRetries: 0,
      providers: { local: { api: "openai-compatible", baseUrl: `${server.url}/v1`, ...(options.keyEnv ? { apiKeyEnv: options.keyEnv } : {}), models } },
      ...options.extra,
    }),
  );
}
