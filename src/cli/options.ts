/**
 * Command-line parsing. A small table of options, each with a validator,
 * so every bad input gets a one-line reason and exit code 2.
 * @module
 */
import { APPROVAL_MODES, type ApprovalMode } from "../config/settings-schema.ts";
import { canonicalOrigin } from "../config/web-origin.ts";
import type { LogLevel } from "../runtime/log.ts";

export class UsageError extends Error {
  override name = "UsageError";
}

export type Command = "agent stdio" | "agent serve" | "demo" | "models" | "login" | "logout" | "help" | "version";

export interface CliOptions {
  home?: string;
  model?: string;
  approvalMode?: ApprovalMode;
  sessionDir?: string;
  noSession: boolean;
  logLevel?: LogLevel;
  host?: string;
  port?: number;
  tokenFile?: string;
  allowRemote: boolean;
  /** `login`/`logout`: the provider (built in, or a name for an OpenAI-compatible endpoint). */
  provider?: string;
  /** `login`: the endpoint of an OpenAI-compatible provider. */
  baseUrl?: string;
  /** `login`: store the key without checking it. */
  noVerify?: boolean;
  /** `login --status`: say which providers have credentials, and from where. */
  status?: boolean;
  /** `models --all`: the whole catalogue, not only the models with credentials. */
  all?: boolean;
  /** `--http-idle-timeout`: seconds before an idle Streamable HTTP connection is closed. */
  httpIdleTimeoutSeconds?: number;
  /** `--allow-origin`, each time it is given: web origins allowed besides the server's own. */
  allowOrigins?: string[];
}

export interface ParsedCommand {
  command: Command;
  options: CliOptions;
}

type Spec = { takesValue: boolean; commands: readonly Command[]; apply(options: CliOptions, value: string): void };

const AGENT: readonly Command[] = ["agent stdio", "agent serve"];
const ANY: readonly Command[] = ["agent stdio", "agent serve", "demo", "models", "login", "logout"];
const MODEL_SPEC = /^[^/\s]+\/\S+$/;
const LOG_LEVELS = ["error", "warn", "info", "debug"] as const;

function oneOf<T extends string>(name: string, allowed: readonly T[], value: string): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`${name} must be one of ${allowed.join(", ")} (got "${value}")`);
}

const SPECS: Record<string, Spec> = {
  "--home": { takesValue: true, commands: ANY, apply: (o, v) => void (o.home = v) },
  // Checked once the command is known: for `login` it may be a bare model id.
  "--model": { takesValue: true, commands: ["agent stdio", "agent serve", "demo", "models", "login"], apply: (o, v) => void (o.model = v) },
  "--approval-mode": { takesValue: true, commands: AGENT, apply: (o, v) => void (o.approvalMode = oneOf("--approval-mode", APPROVAL_MODES, v)) },
  "--session-dir": { takesValue: true, commands: AGENT, apply: (o, v) => void (o.sessionDir = v) },
  "--no-session": { takesValue: false, commands: AGENT, apply: (o) => void (o.noSession = true) },
  "--log-level": { takesValue: true, commands: ANY, apply: (o, v) => void (o.logLevel = oneOf("--log-level", LOG_LEVELS, v)) },
  "--host": { takesValue: true, commands: ["agent serve"], apply: (o, v) => void (o.host = v) },
  "--port": {
    takesValue: true,
    commands: ["agent serve"],
    apply: (o, v) => {
      const port = Number(v);
      if (!/^\d+$/.test(v) || port > 65535) throw new UsageError(`--port must be an integer from 0 to 65535 (got "${v}")`);
      o.port = port;
    },
  },
  "--token-file": { takesValue: true, commands: ["agent serve"], apply: (o, v) => void (o.tokenFile = v) },
  "--allow-remote": { takesValue: false, commands: ["agent serve"], apply: (o) => void (o.allowRemote = true) },
  "--provider": { takesValue: true, commands: ["login", "logout"], apply: (o, v) => void (o.provider = v) },
  "--base-url": { takesValue: true, commands: ["login"], apply: (o, v) => void (o.baseUrl = v) },
  "--no-verify": { takesValue: false, commands: ["login"], apply: (o) => void (o.noVerify = true) },
  "--status": { takesValue: false, commands: ["login"], apply: (o) => void (o.status = true) },
  "--all": { takesValue: false, commands: ["models"], apply: (o) => void (o.all = true) },
  "--http-idle-timeout": {
    takesValue: true,
    commands: ["agent serve"],
    apply: (o, v) => {
      const seconds = Number(v);
      // A day at most: longer would overflow the timer that keeps the deadline.
      if (!/^\d+(\.\d+)?$/.test(v) || seconds <= 0 || seconds > 86_400) throw new UsageError(`--http-idle-timeout must be a number of seconds above 0, at most 86400 (got "${v}")`);
      o.httpIdleTimeoutSeconds = seconds;
    },
  },
  "--allow-origin": {
    takesValue: true,
    commands: ["agent serve"],
    apply: (o, v) => {
      const origin = canonicalOrigin(v);
      if (origin === undefined) throw new UsageError(`--allow-origin must be an origin like http://localhost:3000: scheme, host and optional port, nothing else (got "${v.slice(0, 80)}")`);
      (o.allowOrigins ??= []).push(origin);
    },
  },
};

/** `logout [PROVIDER]`: the provider may also come from `--provider`, not from both with different names. */
function logoutCommand(options: CliOptions, provider: string | undefined): "logout" {
  if (provider !== undefined && options.provider !== undefined && provider !== options.provider) {
    throw new UsageError(`logout names two providers ("${provider}" and --provider "${options.provider}")`);
  }
  if (provider !== undefined) options.provider = provider;
  return "logout";
}

/** Parses `argv` (without the runtime and script); throws `UsageError` with a one-line reason. */
export function parseCommandLine(argv: readonly string[]): ParsedCommand {
  const options: CliOptions = { noSession: false, allowRemote: false };
  const words: string[] = [];
  const seen: string[] = [];
  let command: Command;

  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === "--help" || arg === "-h") return { command: "help", options };
    if (arg === "--version" || arg === "-v") return { command: "version", options };
    if (arg.startsWith("-")) {
      const eq = arg.indexOf("=");
      const name = eq >= 0 ? arg.slice(0, eq) : arg;
      const spec = SPECS[name];
      if (!spec) throw new UsageError(`unknown option ${name}`);
      let value = "";
      if (spec.takesValue) {
        if (eq >= 0) value = arg.slice(eq + 1);
        else {
          const next = argv[i + 1];
          if (next === undefined || next.startsWith("--")) throw new UsageError(`${name} needs a value`);
          value = next;
          i += 1;
        }
        if (value === "") throw new UsageError(`${name} needs a value`);
      } else if (eq >= 0) {
        throw new UsageError(`${name} takes no value`);
      }
      spec.apply(options, value);
      seen.push(name);
      continue;
    }
    words.push(arg);
  }

  const phrase = words.join(" ");
  // A client's terminal login appends `login` to the agent's own command line: its options are accepted there.
  let via: Command | undefined;
  if (phrase === "" || phrase === "help") command = "help";
  else if (phrase === "agent stdio" || phrase === "agent serve" || phrase === "demo" || phrase === "models" || phrase === "login") command = phrase;
  else if (phrase === "agent stdio login") [command, via] = ["login", "agent stdio"];
  else if (words[0] === "logout" && words.length <= 2) command = logoutCommand(options, words[1]);
  else if (words[0] === "agent") throw new UsageError(`unknown agent command "${words.slice(1).join(" ") || "(none)"}"; use "agent stdio" or "agent serve"`);
  else throw new UsageError(`unknown command "${phrase}"`);

  for (const name of seen) {
    const applies = SPECS[name]!.commands;
    if (!applies.includes(command) && !(via && applies.includes(via))) throw new UsageError(`${name} does not apply to "${command}"`);
  }
  if (options.model !== undefined && command !== "login" && !MODEL_SPEC.test(options.model)) {
    throw new UsageError(`--model must look like provider/model (got "${options.model}")`);
  }
  return { command, options };
}
