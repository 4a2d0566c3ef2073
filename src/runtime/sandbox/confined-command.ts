/**
 * The whole command line of a confined command: a small `/bin/sh` prelude
 * that drops the environment's secrets, then bubblewrap and its options,
 * then the shell that runs the command. In front of bubblewrap, not inside:
 * bubblewrap's own process is the first of the sandbox's process namespace,
 * and its environment is readable there (`/proc/1/environ`), so the secrets
 * must be gone before it starts. In the command line, not in the agent: the
 * editor's terminal runs the same line with the editor's own environment,
 * which the agent never sees.
 * @module
 */
import { bwrapArguments } from "./bwrap-arguments.ts";
import type { SandboxSpec } from "./sandbox-spec.ts";
import { networkPrelude } from "./network/sandbox-network.ts";

/**
 * Variables a confined command never gets, as `case` patterns: keys, tokens, secrets and
 * passwords by their names' conventions, and pointers to the sockets of agents and daemons that
 * act for the user (ssh-agent, the session bus, Docker, the desktop).
 */
export const SECRET_VARIABLE_PATTERNS = [
  "*_API_KEY",
  "*_api_key",
  "*_TOKEN",
  "*_token",
  "*_SECRET*",
  "*_secret*",
  "*PASSWORD*",
  "*password*",
  "SSH_AUTH_SOCK",
  "SSH_AGENT_PID",
  "GPG_AGENT_INFO",
  "DBUS_SESSION_BUS_ADDRESS",
  "DOCKER_HOST",
  "WAYLAND_DISPLAY",
  "XDG_RUNTIME_DIR",
] as const;

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `[program, ...args]` that runs `<shell> -c command` confined by `spec`, its environment cleaned
 * first — for bubblewrap and, when the command may reach allowed hosts, the forwarder too: both share
 * the command's process namespace, so their environments are readable to the command.
 */
export async function confinedCommand(spec: SandboxSpec, shell: string, command: string): Promise<string[]> {
  // Only plain names become patterns: nothing a setting holds can change the prelude's syntax.
  const names = [...SECRET_VARIABLE_PATTERNS, ...(spec.secretVariables ?? []).filter((name) => VARIABLE_NAME.test(name))];
  const prelude = [
    // Each line of `env` starts with a name (a value's own lines may add names: unsetting one more is harmless).
    "set -f",
    "IFS='",
    "'",
    "for line in $(env); do",
    `  case "\${line%%=*}" in ${names.join("|")}) unset "\${line%%=*}" 2>/dev/null ;; esac`,
    "done",
    "unset IFS",
    "set +f",
    'exec "$@"',
  ].join("\n");
  const cleaned = ["/bin/sh", "-c", prelude, "sh"];
  if (!spec.network) return [...cleaned, ...(await bwrapArguments(spec)), shell, "-c", command];
  const carrier = await spec.network.openCarrier();
  try {
    return [...cleaned, ...(await bwrapArguments(spec, carrier)), ...networkPrelude(spec.network), shell, "-c", command];
  } catch (error) {
    carrier.close();
    throw error;
  }
}
