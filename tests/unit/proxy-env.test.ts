/**
 * The proxy settings as the agent reads them (src/runtime/fetch/proxy-env.ts):
 * when Node's own `fetch` reads them, and what an error message may say
 * about them — never a password, whatever the variable holds.
 */
import { describe, expect, test } from "bun:test";
import { nodeReadsProxyEnv, proxyConfigured, proxyNote } from "../../src/runtime/fetch/proxy-env.ts";

describe("proxyConfigured", () => {
  test.each([
    [{}, false],
    [{ NO_PROXY: "example.com", no_proxy: "*" }, false],
    [{ HTTPS_PROXY: "" }, false],
    [{ HTTPS_PROXY: "http://p:1" }, true],
    [{ https_proxy: "http://p:1" }, true],
    [{ HTTP_PROXY: "http://p:1" }, true],
    [{ http_proxy: "http://p:1" }, true],
  ])("%j → %p", (env, expected) => {
    expect(proxyConfigured(env)).toBe(expected);
  });
});

describe("nodeReadsProxyEnv", () => {
  const on = { NODE_USE_ENV_PROXY: "1" };
  test.each([
    ["v20.20.2", on, [], false],
    ["v22.20.0", on, [], false],
    ["v22.21.0", on, [], true],
    ["v22.23.3", {}, [], false],
    ["v22.23.3", { NODE_USE_ENV_PROXY: "0" }, [], false],
    ["v22.23.3", {}, ["--use-env-proxy"], true],
    ["v24.4.1", on, [], false],
    ["v24.5.0", on, [], true],
    ["v24.21.0", { NODE_OPTIONS: "--max-old-space-size=100 --use-env-proxy" }, [], true],
    ["v24.21.0", on, ["--no-use-env-proxy"], false],
    ["v26.10.0", on, [], true],
    ["v23.11.0", on, [], false],
  ] as const)("%s with %j and %j → %p", (version, env, execArgv, expected) => {
    expect(nodeReadsProxyEnv(version, env, execArgv)).toBe(expected);
  });
});

describe("proxyNote", () => {
  test("names the variable for the URL's scheme, lower case first, and the proxy without its credentials", () => {
    const env = { HTTPS_PROXY: "http://user:secret@upper:3128", https_proxy: "http://user:secret@lower:3128/", HTTP_PROXY: "https://plain:8443" };
    expect(proxyNote("https://api.example.com/v1", env)).toBe("https_proxy is http://lower:3128");
    expect(proxyNote("http://127.0.0.1:9/v1", env)).toBe("HTTP_PROXY is https://plain:8443");
    expect(proxyNote("http://127.0.0.1:9/v1", { HTTPS_PROXY: "http://p:1" })).toBeUndefined();
    expect(proxyNote("not a url", env)).toBeUndefined();
    expect(proxyNote("https://x/", { HTTPS_PROXY: "proxy.corp:3128" })).toBe("HTTPS_PROXY is http://proxy.corp:3128");
    expect(proxyNote("https://x/", { HTTPS_PROXY: "%%%" })).toBe("HTTPS_PROXY is set");
  });

  test("never repeats a password, whatever the setting holds (seeded)", () => {
    let seed = 0x2545f491;
    const next = () => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) / 2 ** 32;
    };
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const alphabet = "abcXYZ019:@/%?#[]. -_\\\"'\n\t\u00e9\u{1f600}";
    const junk = (length: number) => Array.from({ length }, () => pick([...alphabet])).join("");
    for (let i = 0; i < 2000; i++) {
      // Credentials are what comes before an "@"; without one the text is the host, which the note may show.
      const password = `pw-${i}-${junk(6).replace(/[@:/]/g, "")}SECRET`;
      const value =
        pick(["", "http://", "https://", "socks5://", "ftp://", "//", junk(3)]) +
        pick(["", "user:", junk(4) + ":"]) +
        password +
        pick(["@", "@@", ":@", "@:"]) +
        pick(["proxy", "10.0.0.1", "[::1]", junk(5)]) +
        pick(["", ":3128", `:${junk(3)}`]) +
        pick(["", "/", `/${junk(4)}`, `?${junk(4)}`]);
      const note = proxyNote("https://api.example.com/", { HTTPS_PROXY: value });
      expect(note).toBeDefined();
      expect(note!).not.toContain("SECRET");
    }
  });
});
