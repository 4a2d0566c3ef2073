/**
 * Loading and merging `settings.json`. The user file (`<home>/settings.json`)
 * is trusted; a project file (`<cwd>/.acp-edge/settings.json`) comes with
 * whatever repository was cloned, so it may only make things stricter.
 * @module
 */
import * as v from "valibot";
import { describeSkip, readConfinedFile } from "../runtime/files/confined-file.ts";
import { readTextFile, isNotFound } from "../runtime/files/fs.ts";
import { join } from "../runtime/files/path.ts";
import { log } from "../runtime/log.ts";
import {
  APPROVAL_MODES,
  describeIssues,
  SettingsSchema,
  type ApprovalMode,
  type PermissionRule,
  type Settings,
} from "./settings-schema.ts";

/** A settings or auth file that cannot be used, with a message that names the file and the problem. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Reads and validates a JSON file; undefined when it does not exist. */
export async function readJsonFile<T>(path: string, schema: v.GenericSchema<unknown, T>): Promise<T | undefined> {
  const data = await readJsonValue(path);
  if (data === undefined) return undefined;
  return checkJson(path, data, schema);
}

/** A JSON file's value as written, unvalidated (fields no schema knows kept); undefined when it does not exist. */
export async function readJsonValue(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readTextFile(path);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw new ConfigError(`cannot read ${path}: ${(error as Error).message}`);
  }
  return parseJsonValue(path, text);
}

/** The value of a JSON file's text, naming the file when it is not JSON. */
function parseJsonValue(path: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${path} is not valid JSON: ${(error as Error).message}`);
  }
}

/** Validates a file's value; a `ConfigError` names the file and every problem. */
export function checkJson<T>(path: string, data: unknown, schema: v.GenericSchema<unknown, T>): T {
  const result = v.safeParse(schema, data);
  if (!result.success) throw new ConfigError(`${path}: ${describeIssues(result.issues)}`);
  return result.output;
}

export async function loadUserSettings(path: string): Promise<Settings> {
  return (await readJsonFile(path, SettingsSchema)) ?? {};
}

export function projectSettingsPath(cwd: string): string {
  return join(cwd, ".acp-edge", "settings.json");
}

/**
 * Strictness order: a project may move towards `read-only`, never away from it. `auto` runs
 * commands (sandboxed) without asking, so it is looser than `write`, which asks before each.
 */
const strictness: Record<ApprovalMode, number> = { yolo: 0, auto: 1, write: 2, ask: 3, "read-only": 4 };

export function stricterMode(a: ApprovalMode, b: ApprovalMode): ApprovalMode {
  return strictness[a] >= strictness[b] ? a : b;
}

/**
 * Applies a project's settings on top of the user's (whose `approvalMode`
 * already includes a `--approval-mode` flag). The project may pick the
 * model and thinking level, tighten the approval mode and add `ask`/`deny`
 * rules; providers, allow rules and storage locations stay the user's call.
 */
export function mergeProjectSettings(user: Settings, project: Settings, source: string): Settings {
  const ignored: string[] = [];
  if (project.providers) ignored.push("providers");
  if (project.sessionDir) ignored.push("sessionDir");
  if (project.models) ignored.push("models");
  if (project.maxRetries !== undefined) ignored.push("maxRetries");
  // What caching costs is the user's bill to decide.
  if (project.promptCache !== undefined) ignored.push("promptCache");
  // Which hosts the fetch tool may reach beyond the public internet is the user's call alone.
  if (project.fetch) ignored.push("fetch");
  // Where model facts come from is the user's call: a project's mirror could misstate windows and prices.
  if (project.catalog) ignored.push("catalog");
  // What confines the project's own commands cannot be the project's to loosen.
  if (project.sandbox !== undefined) ignored.push("sandbox");
  // Search sends what the model writes to a third party on the user's account: a project may only turn it off.
  if (project.webSearch !== undefined && project.webSearch !== false) ignored.push("webSearch (a project may only set it to false)");
  // A server command in a project file would be code from the repository run by the agent: a project may only turn them off.
  if (project.lsp !== undefined && project.lsp !== false) ignored.push("lsp (a project may only turn language servers off)");
  const allowRules = (project.permissionRules ?? []).filter((rule) => rule.action === "allow");
  if (allowRules.length > 0) ignored.push(`${allowRules.length} allow rule(s)`);
  const userMode = user.approvalMode ?? "ask";
  if (project.approvalMode && stricterMode(project.approvalMode, userMode) !== project.approvalMode) {
    ignored.push(`approvalMode "${project.approvalMode}" (looser than "${userMode}")`);
  }
  if (ignored.length > 0) log.warn(`${source}: a project file may only tighten settings; ignored ${ignored.join(", ")}`);

  const tightening: PermissionRule[] = (project.permissionRules ?? []).filter((rule) => rule.action !== "allow");
  const merged: Settings = { ...user };
  if (project.defaultModel) merged.defaultModel = project.defaultModel;
  if (project.thinkingLevel) merged.thinkingLevel = project.thinkingLevel;
  if (project.maxTurnRequests !== undefined) {
    merged.maxTurnRequests = Math.min(project.maxTurnRequests, user.maxTurnRequests ?? project.maxTurnRequests);
  }
  if (project.approvalMode) merged.approvalMode = stricterMode(user.approvalMode ?? "ask", project.approvalMode);
  if (project.webSearch === false) merged.webSearch = false;
  if (tightening.length > 0) merged.permissionRules = [...(user.permissionRules ?? []), ...tightening];
  if (project.lsp === false) merged.lsp = false;
  return merged;
}

/** A project settings file larger than this is refused: settings are a few lines. */
const PROJECT_SETTINGS_BUDGET = 256 * 1024;

/**
 * User settings merged with the project's, if the project has a settings
 * file. The file comes with the repository, so it is read with
 * `readConfinedFile` inside the session's resolved `roots`: one that leads
 * outside them, is not a regular file or is too large is refused with the
 * reason (never its content), as an invalid one is — it may only tighten, so
 * the session does not open without it.
 */
export async function loadSettingsFor(cwd: string, user: Settings, roots: readonly string[]): Promise<Settings> {
  const path = projectSettingsPath(cwd);
  const read = await readConfinedFile(path, { areas: roots, budget: PROJECT_SETTINGS_BUDGET });
  if (!read.ok) {
    if (read.reason === "missing") return user;
    throw new ConfigError(`${path} was not read: ${describeSkip(read, "the session's folders", PROJECT_SETTINGS_BUDGET)}`);
  }
  return mergeProjectSettings(user, checkJson(path, parseJsonValue(path, read.text), SettingsSchema), path);
}

export function isApprovalMode(value: string): value is ApprovalMode {
  return (APPROVAL_MODES as readonly string[]).includes(value);
}
