/**
 * The proxy settings HTTP clients read from the environment: HTTPS_PROXY for
 * `https:` URLs, HTTP_PROXY for `http:` ones, NO_PROXY for hosts reached
 * directly, each also in lower case. Bun's and Deno's `fetch` honour them on
 * their own; Node's does only when started with NODE_USE_ENV_PROXY=1 or
 * `--use-env-proxy` (Node 22.21+ and 24.5+), so other Node processes send
 * outbound requests through undici's `EnvHttpProxyAgent` (proxy-fetch-node.ts).
 * @module
 */
import process from "node:process";

type Env = Record<string, string | undefined>;

// The lower-case form first, as curl and undici read them.
const PROXY_VARIABLES = { "https:": ["https_proxy", "HTTPS_PROXY"], "http:": ["http_proxy", "HTTP_PROXY"] } as const;

/** Whether a proxy is set for `http:` or `https:` URLs (NO_PROXY alone changes nothing). */
export function proxyConfigured(env: Env = process.env): boolean {
  return [...PROXY_VARIABLES["https:"], ...PROXY_VARIABLES["http:"]].some((name) => Boolean(env[name]));
}

/**
 * Whether this Node's own `fetch` reads the proxy variables: the user
 * switched it on, on a Node that has the switch. `version` is `process.version`.
 */
export function nodeReadsProxyEnv(version: string, env: Env = process.env, execArgv: readonly string[] = process.execArgv): boolean {
  const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number);
  const hasSwitch = major >= 25 || (major === 24 && minor >= 5) || (major === 22 && minor >= 21);
  if (!hasSwitch) return false;
  const flags = [...execArgv, ...(env.NODE_OPTIONS ?? "").split(/\s+/)];
  if (flags.includes("--no-use-env-proxy")) return false;
  return flags.includes("--use-env-proxy") || env.NODE_USE_ENV_PROXY === "1";
}

/**
 * For an error message about `url`: which variable names a proxy for it and
 * where that proxy is, credentials left out (`HTTPS_PROXY is http://proxy:3128`).
 * Undefined when none is set. Whether NO_PROXY exempts the host is the
 * client's decision; this only says what is set.
 */
export function proxyNote(url: string, env: Env = process.env): string | undefined {
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    return undefined;
  }
  const names = PROXY_VARIABLES[protocol as keyof typeof PROXY_VARIABLES];
  const name = names?.find((candidate) => Boolean(env[candidate]));
  if (!name) return undefined;
  const proxy = proxyAddress(env[name]!);
  // Anything but a plain proxy URL is not repeated: its text could hold anything, a password included.
  return proxy ? `${name} is ${proxy}` : `${name} is set`;
}

/** `scheme://host:port` of a proxy setting, with or without its scheme; undefined when it is no such thing. */
function proxyAddress(value: string): string | undefined {
  for (const text of [value, `http://${value}`]) {
    try {
      const url = new URL(text);
      if (/^(https?|socks5?h?):$/.test(url.protocol) && url.host) return `${url.protocol}//${url.host}`;
    } catch {
      // Try the next reading.
    }
  }
  return undefined;
}
