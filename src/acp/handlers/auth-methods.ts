/**
 * The authentication methods `initialize` offers a client. Keys are never
 * collected over ACP: `acp-edge login` stores them. A client that can run a
 * terminal login gets it as a `terminal` method (`args: ["login"]`, which
 * logs in whether the client appends them to the agent's command line or
 * puts them in place of its arguments); a client of the older convention
 * (`clientCapabilities._meta["terminal-auth"]`) gets the command line to run
 * in `_meta["terminal-auth"]`. The agent method is always there: it checks
 * the stored and environment credentials again. No method's text names a
 * path of this machine.
 * @module
 */
import { AUTH_METHOD_ID, TERMINAL_AUTH_METHOD_ID } from "../errors.ts";
import type { AuthMethod, ClientCapabilities } from "../sdk.ts";
import type { AgentServices, TerminalLogin } from "../../sessions/services.ts";

/** The arguments that make any launch command of acp-edge log in. */
export const LOGIN_ARGS: readonly string[] = ["login"];

const LOGIN_DESCRIPTION =
  "Runs `acp-edge login` in a terminal: choose Anthropic, OpenAI or an OpenAI-compatible endpoint and paste its API key; " +
  "the key is checked with one small request and stored in auth.json of the agent's home folder.";

function agentMethod(remote: boolean): AuthMethod {
  return {
    id: AUTH_METHOD_ID,
    name: "Stored credentials",
    description:
      "Uses the keys stored by `acp-edge login` or set in provider environment variables (ANTHROPIC_API_KEY, OPENAI_API_KEY), " +
      `and the providers of settings.json. ${remote ? "Run `acp-edge login` where the agent runs, then authenticate again." : "Keys are never collected over ACP."}`,
  };
}

/** The older convention's description: a command line the client runs as it is. */
function legacyTerminalAuth(login: TerminalLogin): Record<string, unknown> {
  return {
    "terminal-auth": {
      command: login.invocation.command,
      args: [...login.invocation.args, ...LOGIN_ARGS],
      label: "acp-edge login",
      ...(login.env ? { env: login.env } : {}),
    },
  };
}

/** The methods for a client with these capabilities. */
export function authMethodsFor(services: AgentServices, capabilities: ClientCapabilities): AuthMethod[] {
  const login = services.terminalLogin;
  const terminal = login !== undefined && capabilities.auth?.terminal === true;
  const legacy = login !== undefined && capabilities._meta?.["terminal-auth"] === true;
  const agent = agentMethod(login === undefined);
  if (!login || (!terminal && !legacy)) return [agent];
  const meta = legacy ? legacyTerminalAuth(login) : undefined;
  if (!terminal) return [{ ...agent, _meta: meta }];
  // A client that speaks both conventions finds the older description on the terminal method, not on a second button.
  const method: AuthMethod = {
    type: "terminal",
    id: TERMINAL_AUTH_METHOD_ID,
    name: "Log in with an API key",
    description: LOGIN_DESCRIPTION,
    args: [...LOGIN_ARGS],
    ...(login.env ? { env: login.env } : {}),
    ...(meta ? { _meta: meta } : {}),
  };
  return [method, agent];
}
