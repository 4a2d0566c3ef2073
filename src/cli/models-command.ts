/**
 * `acp-edge models`: the models of the built-in providers, of settings.json's
 * providers and of every preset service that has a key, with context window,
 * price and whether each has credentials (and if not, how to give it some);
 * `--all` lists the whole catalogue, every provider acp-edge knows models of.
 * @module
 */
import { ConfigError } from "../config/settings.ts";
import { catalogInfo, catalogModelIds, catalogProviders } from "../models/catalog.ts";
import type { ModelChoice } from "../models/registry.ts";
import type { ModelInfo } from "../models/types.ts";
import { printError, printOut, printOutFully } from "../runtime/log.ts";
import type { AgentServices } from "../sessions/services.ts";

type Row = Pick<ModelChoice, "spec" | "info"> & { credentials: string };

function priceText(info: ModelInfo): string {
  const price = info.price;
  return price ? `$${price.input}/$${price.output}` : "-";
}

export async function runModelsCommand(services: AgentServices, all: boolean): Promise<number> {
  try {
    await services.registry.refresh();
    // Also the providers without credentials: their rows say how to give them some.
    await services.registry.loadWholeCatalog();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    printError(`acp-edge: ${error.message}\n`);
    return 1;
  }
  // Without --all a preset shows up once it has a key: hundreds of rows of services the user never set up help no one.
  const choices = services.registry.list().filter((c) => all || !c.provider.preset || c.credential.ok);
  const rows: Row[] = choices.map((c) => ({ spec: c.spec, info: c.info, credentials: c.credential.ok ? `yes (${c.credential.source})` : `no — ${c.credential.hint}` }));
  if (all) {
    // The catalogue also knows providers no configured provider of this name reaches (yet): listed, not usable.
    const configured = new Set(services.registry.allProviders().map((p) => p.name));
    for (const provider of (await catalogProviders()).filter((name) => !configured.has(name))) {
      for (const id of catalogModelIds(provider)) rows.push({ spec: `${provider}/${id}`, info: catalogInfo(provider, id), credentials: "no — no provider of this name is configured" });
    }
  }
  if (rows.length === 0) {
    printOut(
      "No model has credentials. Log in with `acp-edge login`, set a provider's key (ANTHROPIC_API_KEY, OPENAI_API_KEY, " +
        "GROQ_API_KEY, …), or add a provider to settings.json; `acp-edge models --all` lists every model acp-edge knows.\n",
    );
    return 0;
  }
  const width = Math.max(...rows.map((r) => r.spec.length), 5);
  const lines = [`${"MODEL".padEnd(width)}  CONTEXT  PRICE (USD/M in/out)  CREDENTIALS`];
  for (const row of rows) {
    const context = `${Math.round(row.info.contextWindow / 1000)}k`.padEnd(7);
    lines.push(`${row.spec.padEnd(width)}  ${context}  ${priceText(row.info).padEnd(20)}  ${row.credentials}`);
  }
  const providers = new Set(rows.map((r) => r.spec.slice(0, r.spec.indexOf("/")))).size;
  lines.push(`${rows.length} models of ${providers} providers${all ? "" : "; `acp-edge models --all` lists every known model"}.`);
  await printOutFully(`${lines.join("\n")}\n`);
  return 0;
}
