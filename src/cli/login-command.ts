/**
 * `acp-edge login`: on a terminal, a dialogue (provider, endpoint, key never
 * shown); otherwise `--provider` (with `--base-url` and `--model` for an
 * OpenAI-compatible endpoint) and the key on standard input. The key is
 * checked with one small request unless `--no-verify`, then stored; a running
 * agent sees it at its next `session/new` or `authenticate`. Exit codes: 0
 * stored, 1 not stored (the check failed, the person cancelled), 2 bad input.
 * @module
 */
import { resolveHome, homePaths, type HomePaths } from "../config/home.ts";
import { storeApiKey, storeEndpoint } from "../config/login-files.ts";
import { configuredProviders, loadCloudChecks, type ProviderConfig } from "../config/providers.ts";
import { loadUserSettings } from "../config/settings.ts";
import { checkCredential, type CheckResult } from "../models/credential-check.ts";
import type { ProviderEndpoint } from "../models/types.ts";
import { printError, printOut } from "../runtime/log.ts";
import { env } from "../runtime/process/process.ts";
import { registerSecret } from "../runtime/secrets.ts";
import { openRawTerminalInput, readStdinToEnd, stdinIsTerminal } from "../runtime/host/terminal-input.ts";
import { askEndpoint, askKey, askTarget } from "./login-dialog.ts";
import { checkKeyText, targetFromOptions, type LoginTarget } from "./login-target.ts";
import { UsageError, type CliOptions } from "./options.ts";
import { TerminalPrompt } from "./terminal-prompt.ts";

/** More than any key and its newline: a larger input is not a key. */
const MAX_STDIN_BYTES = 64 * 1024;

/** Runs `acp-edge login`; resolves with the exit code. */
export async function runLogin(options: CliOptions): Promise<number> {
  if (options.status) return await (await import("./login-status.ts")).runLoginStatus(options);
  const paths = homePaths(resolveHome(options.home));
  const providers = configuredProviders(await loadUserSettings(paths.settings));
  return stdinIsTerminal() ? await interactiveLogin(paths, providers, options) : await scriptedLogin(paths, providers, options);
}

/** The key from standard input: UTF-8 text, surrounding whitespace dropped; undefined when empty. */
async function keyFromStdin(): Promise<string | undefined> {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(await readStdinToEnd(MAX_STDIN_BYTES));
  } catch (error) {
    throw new UsageError(error instanceof TypeError ? "standard input is not UTF-8 text; nothing was saved" : `${(error as Error).message}; nothing was saved`);
  }
  return text.trim() === "" ? undefined : checkKeyText(text);
}

async function scriptedLogin(paths: HomePaths, providers: ProviderConfig[], options: CliOptions): Promise<number> {
  if (options.provider === undefined) {
    throw new UsageError("without a terminal, name the provider with --provider (anthropic, openai, google, bedrock, azure, or a name with --base-url and --model) and pipe the key to standard input");
  }
  const target = targetFromOptions({ provider: options.provider, ...pick(options) }, providers);
  const key = await keyFromStdin();
  registerSecret(key);
  if (key === undefined && !target.keyOptional) throw new UsageError(`no key on standard input for ${target.provider}; pipe it in (for example: acp-edge login --provider ${target.provider} < key.txt)`);
  if (!options.noVerify) {
    const result = await checkCredential(await endpointOf(target, key, providers), target.modelId);
    if (!result.ok) {
      printError(`acp-edge: ${failureText(target, result)} Nothing was saved.`);
      return 1;
    }
    if (result.warning) printError(`acp-edge: note: ${result.warning}`);
  }
  await save(paths, target, key);
  return 0;
}

async function interactiveLogin(paths: HomePaths, providers: ProviderConfig[], options: CliOptions): Promise<number> {
  const input = openRawTerminalInput();
  const prompt = new TerminalPrompt(input);
  const cancelled = () => {
    printError("acp-edge: login cancelled; nothing was saved.");
    return 1;
  };
  try {
    const first = options.provider === undefined ? await askTarget(prompt, providers) : { value: targetFromOptions({ provider: options.provider, ...pick(options) }, providers) };
    if (first === "cancelled") return cancelled();
    let target = first.value;
    for (;;) {
      const key = await askKey(prompt, target);
      if (key === "cancelled") return cancelled();
      registerSecret(key.value);
      if (options.noVerify) {
        await save(paths, target, key.value);
        return 0;
      }
      prompt.say(`Checking with one small request to ${target.provider}/${target.modelId}…\n`);
      const result = await checkCredential(await endpointOf(target, key.value, providers), target.modelId);
      if (result.ok) {
        if (result.warning) prompt.say(`Note: ${result.warning}\n`);
        await save(paths, target, key.value);
        return 0;
      }
      prompt.say(`${failureText(target, result)} Nothing was saved.\n`);
      if (!(await prompt.confirm("Try again?"))) return 1;
      // What to ask again follows from what failed: the endpoint of one's own, or just the key.
      if (target.endpoint && result.reason !== "refused") {
        const again = await askEndpoint(prompt, providers);
        if (again === "cancelled") return cancelled();
        target = again.value;
      }
    }
  } finally {
    input.close();
  }
}

function pick(options: CliOptions): { baseUrl?: string; model?: string } {
  return { ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}), ...(options.model !== undefined ? { model: options.model } : {}) };
}

/** Where the check request goes; a built-in cloud provider's region or resource come from the environment. */
async function endpointOf(target: LoginTarget, key: string | undefined, providers: readonly ProviderConfig[]): Promise<ProviderEndpoint> {
  const builtIn = providers.find((p) => p.name === target.provider)?.builtIn === true;
  const { problem: _problem, apiKeyEnv: _keyEnv, ...fromEnvironment } = builtIn ? (await loadCloudChecks()).builtInPlacement(target.provider) : {};
  return {
    provider: target.provider,
    api: target.api,
    ...(target.baseUrl ? { baseUrl: target.baseUrl } : {}),
    ...(key ? { apiKey: key } : {}),
    ...(target.headers ? { headers: target.headers } : {}),
    ...target.placement,
    ...fromEnvironment,
    maxRetries: 0,
  };
}

/** What failed, in the words a person needs to fix it. */
export function failureText(target: LoginTarget, result: Exclude<CheckResult, { ok: true }>): string {
  const where = target.baseUrl ?? target.provider;
  switch (result.reason) {
    case "refused":
      return `The key was refused by ${target.provider} (${result.message}).`;
    case "unreachable":
      return `${where} cannot be reached (${result.message}).`;
    case "unknown_model":
      return `The model id "${target.modelId}" is unknown to ${target.provider} (${result.message}).`;
    case "endpoint":
      return `${where} has no such API (${result.message}); check the base URL (it usually ends in /v1).`;
    case "failed":
      return `The check request to ${target.provider} failed (${result.message}).`;
  }
}

/** Stores the key (auth.json first: an endpoint is never seen without its key) and the endpoint; says what was done. */
async function save(paths: HomePaths, target: LoginTarget, key: string | undefined): Promise<void> {
  await storeApiKey(paths, target.provider, key);
  if (target.endpoint) await storeEndpoint(paths, target.provider, target.endpoint);
  const stored = key === undefined ? `${target.provider} needs no key` : `the key of ${target.provider} is stored in ${paths.auth}`;
  const endpoint = target.endpoint ? `; the endpoint ${target.endpoint.baseUrl} (model ${target.endpoint.modelId}) is in ${paths.settings}` : "";
  printOut(`Logged in: ${stored}${endpoint}. Running agents use it from their next session on.\n`);
  if (key !== undefined && target.keyEnv && env(target.keyEnv)) printOut(`Note: ${target.keyEnv} is also set; the stored key takes precedence.\n`);
}
