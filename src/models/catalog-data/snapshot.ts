/**
 * The shipped snapshot, a module per provider, each imported the first time
 * its provider is needed (a literal import each, so the build keeps them
 * apart), and decoded into `ModelInfo`. Loaded itself only once a catalogue
 * is wanted: the program's start needs none.
 * @module
 */
import type { ModelInfo } from "../types.ts";
import { rowInfo, type CatalogRow } from "./row.ts";

type Rows = { default: CatalogRow[] };

const SNAPSHOT: Record<string, () => Promise<Rows>> = {
  anthropic: () => import("./anthropic.ts"),
  openai: () => import("./openai.ts"),
  google: () => import("./google.ts"),
  vertex: () => import("./vertex.ts"),
  bedrock: () => import("./bedrock.ts"),
  azure: () => import("./azure.ts"),
  openrouter: () => import("./openrouter.ts"),
  groq: () => import("./groq.ts"),
  deepseek: () => import("./deepseek.ts"),
  mistral: () => import("./mistral.ts"),
  xai: () => import("./xai.ts"),
  together: () => import("./together.ts"),
  fireworks: () => import("./fireworks.ts"),
  cerebras: () => import("./cerebras.ts"),
  "ollama-cloud": () => import("./ollama-cloud.ts"),
};

/** Every provider the snapshot has models of. */
export const SNAPSHOT_PROVIDERS: readonly string[] = Object.keys(SNAPSHOT);

/** A provider's models by id, from `rows` when given (a fresher copy) else from the snapshot; undefined for a provider it has none of. */
export async function providerModels(provider: string, rows?: readonly CatalogRow[]): Promise<Map<string, ModelInfo> | undefined> {
  const load = SNAPSHOT[provider];
  if (!rows && !load) return undefined;
  const list = rows ?? (await load!()).default;
  return new Map(list.map((row) => [row[0], rowInfo(provider, row)]));
}
