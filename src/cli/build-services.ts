/**
 * Building the process-wide agent services from command-line options.
 * @module
 */
import { SessionRegistry } from "../sessions/session-registry.ts";
import type { AgentServices } from "../sessions/services.ts";
import { resolveHome } from "../config/home.ts";
import { loadUserConfig } from "../config/load.ts";
import { CredentialFiles } from "../config/credential-files.ts";
import type { FauxStep } from "../models/faux-script.ts";
import { ModelRegistry } from "../models/registry.ts";
import { resolve } from "../runtime/files/path.ts";
import { createJsonlStore } from "../store/jsonl-store.ts";
import { createMemoryStore } from "../store/memory-store.ts";
import { expandTilde } from "../config/home.ts";
import type { CliOptions } from "./options.ts";

export async function buildServices(options: CliOptions, extra: { fauxSteps?: FauxStep[] } = {}): Promise<AgentServices> {
  const config = await loadUserConfig(resolveHome(options.home));
  const registry = new ModelRegistry({
    credentials: new CredentialFiles(config.paths, config),
    settings: config.settings,
    ...(extra.fauxSteps ? { fauxSteps: extra.fauxSteps } : {}),
  });
  const configuredDir = options.sessionDir ?? config.settings.sessionDir;
  const sessionDir = configuredDir ? resolve(expandTilde(configuredDir)) : config.paths.sessions;
  const store = options.noSession ? createMemoryStore() : createJsonlStore(sessionDir);
  return {
    config,
    registry,
    store,
    sessionDir,
    sessions: new SessionRegistry(),
    options: {
      noSession: options.noSession,
      ...(options.model ? { model: options.model } : {}),
      ...(options.approvalMode ? { approvalMode: options.approvalMode } : {}),
      ...(options.sessionDir ? { sessionDir: options.sessionDir } : {}),
    },
  };
}
