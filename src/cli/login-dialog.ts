/**
 * The questions `acp-edge login` asks on a terminal: which provider (the
 * vendors and clouds, the providers of `settings.json`, or a new
 * OpenAI-compatible endpoint with its base URL, model id and a name; an Azure
 * deployment to check with), then the key, which is never shown. A bad answer is explained and asked again; every question can
 * be cancelled (Ctrl-C, or Ctrl-D on an empty line).
 * @module
 */
import type { ProviderConfig } from "../config/providers.ts";
import { checkBaseUrl, checkKeyText, checkModelId, checkProviderName, knownTarget, newEndpointTarget, suggestedName, VENDORS, type LoginTarget } from "./login-target.ts";
import { UsageError } from "./options.ts";
import type { TerminalPrompt } from "./terminal-prompt.ts";

/** What a question gives: an answer, or `cancelled` when the person gave up. */
export type Answer<T> = { value: T } | "cancelled";

/** Asks until `parse` accepts the answer (its `UsageError` is shown, and the question asked again). */
async function askUntilValid<T>(prompt: TerminalPrompt, question: string, parse: (text: string) => T, secret = false): Promise<Answer<T>> {
  for (;;) {
    const text = await prompt.ask(question, { secret });
    if (text === undefined) return "cancelled";
    try {
      return { value: parse(text) };
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      prompt.say(`  ${error.message}\n`);
    }
  }
}

/** The providers a person can pick: the vendors, the endpoints of `settings.json`, and a new endpoint. */
function menu(providers: readonly ProviderConfig[]): Array<{ label: string; provider?: ProviderConfig }> {
  const entries: Array<{ label: string; provider?: ProviderConfig }> = VENDORS.map((vendor) => ({
    label: vendor.label,
    provider: providers.find((p) => p.name === vendor.name)!,
  }));
  for (const provider of providers) {
    if (!provider.builtIn) entries.push({ label: `${provider.name} — ${provider.baseUrl ?? provider.api} (from settings.json)`, provider });
  }
  entries.push({ label: "Another OpenAI-compatible endpoint (a local server, a gateway, another vendor)" });
  return entries;
}

/** Asks for the provider; for a new endpoint also its base URL, a model id and a name. */
export async function askTarget(prompt: TerminalPrompt, providers: readonly ProviderConfig[]): Promise<Answer<LoginTarget>> {
  const entries = menu(providers);
  prompt.say(`Log in to a model provider:\n${entries.map((entry, index) => `  ${index + 1}) ${entry.label}\n`).join("")}`);
  const choice = await askUntilValid(prompt, "Choose [1]: ", (text) => {
    const number = text.trim() === "" ? 1 : Number(text.trim());
    if (!Number.isInteger(number) || number < 1 || number > entries.length) throw new UsageError(`answer a number from 1 to ${entries.length}`);
    const entry = entries[number - 1]!;
    // Vertex has no key to ask for: the reason is shown and the menu asked again.
    if (entry.provider?.api === "vertex") knownTarget(entry.provider, undefined, undefined);
    return entry;
  });
  if (choice === "cancelled") return choice;
  const provider = choice.value.provider;
  if (provider?.api === "azure" && provider.models.length === 0) {
    // An Azure key is checked against one of the resource's deployments, named by the person.
    const deployment = await askUntilValid(prompt, "Deployment name: ", checkModelId);
    if (deployment === "cancelled") return deployment;
    return { value: knownTarget(provider, deployment.value, undefined) };
  }
  if (provider) return { value: knownTarget(provider, undefined, undefined) };
  return await askEndpoint(prompt, providers);
}

/** Base URL, model id and name of a new OpenAI-compatible endpoint (a known name updates that provider). */
export async function askEndpoint(prompt: TerminalPrompt, providers: readonly ProviderConfig[]): Promise<Answer<LoginTarget>> {
  const baseUrl = await askUntilValid(prompt, "Base URL (for example http://127.0.0.1:11434/v1): ", checkBaseUrl);
  if (baseUrl === "cancelled") return baseUrl;
  const modelId = await askUntilValid(prompt, "Model id: ", checkModelId);
  if (modelId === "cancelled") return modelId;
  const suggested = suggestedName(baseUrl.value);
  const name = await askUntilValid(prompt, `Name for this provider [${suggested}]: `, (text) => {
    const chosen = checkProviderName(text.trim() === "" ? suggested : text.trim());
    const known = providers.find((p) => p.name === chosen);
    if (known?.builtIn) throw new UsageError(`"${chosen}" is a built-in provider; choose another name`);
    return { chosen, known };
  });
  if (name === "cancelled") return name;
  const { chosen, known } = name.value;
  return { value: known ? knownTarget(known, modelId.value, baseUrl.value) : newEndpointTarget(chosen, baseUrl.value, modelId.value) };
}

/** Asks for the key, never shown; resolves `{ value: undefined }` for an endpoint that needs none. */
export async function askKey(prompt: TerminalPrompt, target: LoginTarget): Promise<Answer<string | undefined>> {
  const question = `API key for ${target.provider}${target.keyOptional ? " (leave empty if it needs none)" : ""}: `;
  return await askUntilValid(
    prompt,
    question,
    (text) => {
      if (text.trim() === "") {
        if (target.keyOptional) return undefined;
        throw new UsageError("a key is needed (paste it, or press Ctrl-C to stop)");
      }
      return checkKeyText(text);
    },
    true,
  );
}
