/**
 * A running agent's view of `auth.json` and the providers of `settings.json`:
 * re-read when a file changed (a login or logout in another process), kept
 * as it is when none did, and kept as before when a change cannot be used
 * (the error says why; the next check tries again).
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CredentialFiles } from "../../src/config/credential-files.ts";
import { homePaths } from "../../src/config/home.ts";
import { loadUserConfig } from "../../src/config/load.ts";
import { ConfigError } from "../../src/config/settings.ts";

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "acp-edge-credentials-"));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const writeAuth = (value: unknown) => writeFileSync(join(home, "auth.json"), typeof value === "string" ? value : JSON.stringify(value), { mode: 0o600 });

describe("CredentialFiles", () => {
  test("a key stored after start is seen at the next refresh; nothing changed means nothing re-read", async () => {
    const files = new CredentialFiles(homePaths(home), await loadUserConfig(home));
    expect(files.auth).toEqual({});
    const before = files.auth;
    await files.refresh();
    expect(files.auth).toBe(before); // the same object: not read again
    writeAuth({ anthropic: { type: "api_key", key: "sk-ant-after-start-0123" } });
    await files.refresh();
    expect(files.auth).toEqual({ anthropic: { type: "api_key", key: "sk-ant-after-start-0123" } });
    writeAuth({});
    await files.refresh();
    expect(files.auth).toEqual({});
  });

  test("a provider added to settings.json is seen; other settings are not its business", async () => {
    const files = new CredentialFiles(homePaths(home), await loadUserConfig(home));
    // The built-in providers, then the presets (services reached by a key alone).
    const before = files.providers.map((p) => p.name);
    expect(before.slice(0, 7)).toEqual(["anthropic", "openai", "google", "vertex", "bedrock", "azure", "faux"]);
    expect(before).not.toContain("local");
    writeFileSync(join(home, "settings.json"), JSON.stringify({ providers: { local: { api: "openai-compatible", baseUrl: "http://127.0.0.1:1/v1" } } }));
    await files.refresh();
    expect(files.providers.map((p) => p.name)).toEqual([...before, "local"]);
  });

  test("a change that cannot be used is reported and leaves what was known; fixing it is seen", async () => {
    writeAuth({ openai: { type: "api_key", key: "sk-openai-first-0123" } });
    const files = new CredentialFiles(homePaths(home), await loadUserConfig(home));
    writeAuth("{broken");
    await expect(files.refresh()).rejects.toBeInstanceOf(ConfigError);
    expect(files.auth).toEqual({ openai: { type: "api_key", key: "sk-openai-first-0123" } });
    await expect(files.refresh()).rejects.toThrow("not valid JSON"); // tried again, not remembered as read
    writeAuth({ openai: { type: "api_key", key: "sk-openai-fixed-0123" } });
    await files.refresh();
    expect(files.auth.openai?.key).toBe("sk-openai-fixed-0123");
  });
});
