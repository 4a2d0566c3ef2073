/**
 * What `acp-edge login` accepts from a person or a script: keys (a seeded
 * fuzzer: a key is stored only as printable ASCII, and a refusal never
 * repeats it), base URLs, model ids, provider names, and which provider a
 * set of flags means. The command line that reaches `login` through a
 * client's terminal method (`agent stdio … login`) parses as a login.
 */
import { describe, expect, test } from "bun:test";
import { checkBaseUrl, checkKeyText, suggestedName, targetFromOptions } from "../../src/cli/login-target.ts";
import { parseCommandLine, UsageError } from "../../src/cli/options.ts";
import { configuredProviders } from "../../src/config/providers.ts";

const providers = configuredProviders({
  providers: { local: { api: "openai-compatible", baseUrl: "http://127.0.0.1:11434/v1", models: [{ id: "qwen3" }] } },
});

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error("expected a refusal");
}

describe("login input", () => {
  test("seeded fuzz: a key is kept only as printable ASCII, and a refusal never repeats it", () => {
    let seed = 27;
    const random = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8) / 0x1000000;
    const alphabet = ["a", "Z", "9", "-", "_", " ", "\t", "\r", "\n", "\u0000", "\u001b", "\u007f", "\u0085", "é", "ключ", "\u2028", "\ud83d\ude00", "\ufeff"];
    for (let round = 0; round < 3000; round++) {
      const length = Math.floor(random() * 40);
      const text = Array.from({ length }, () => (random() < 0.7 ? "k" : alphabet[Math.floor(random() * alphabet.length)]!)).join("");
      let key: string | undefined;
      let message = "";
      try {
        key = checkKeyText(text);
      } catch (error) {
        expect(error).toBeInstanceOf(UsageError);
        message = (error as Error).message;
      }
      if (key !== undefined) {
        expect(key).toMatch(/^[\x21-\x7e]*$/);
        expect(key).toBe(text.trim());
      } else {
        expect(message).toContain("nothing was saved");
        const core = text.trim();
        if (core.length >= 4) expect(message).not.toContain(core);
      }
    }
    expect(refusal(() => checkKeyText("k".repeat(4097)))).toContain("longer than 4096");
  });

  test("base URLs: http(s) only, no credentials, query or fragment; the trailing slash goes", () => {
    expect(checkBaseUrl(" http://127.0.0.1:11434/v1/ ")).toBe("http://127.0.0.1:11434/v1");
    expect(checkBaseUrl("https://api.example.com/openai/v1")).toBe("https://api.example.com/openai/v1");
    for (const bad of ["file:///etc/passwd", "javascript:alert(1)", "ftp://h/v1", "not a url", "http://user:pw@h/v1", "http://h/v1?api-key=sk-123", "http://h/v1#x"]) {
      refusal(() => checkBaseUrl(bad));
    }
    expect(refusal(() => checkBaseUrl("http://h/v1?api-key=sk-secret-0123456789"))).not.toContain("sk-secret");
  });

  test("names suggested for endpoints", () => {
    expect(suggestedName("http://127.0.0.1:11434/v1")).toBe("local");
    expect(suggestedName("http://localhost:1234/v1")).toBe("local");
    expect(suggestedName("http://[::1]:8000/v1")).toBe("local");
    expect(suggestedName("https://api.groq.com/openai/v1")).toBe("groq");
    expect(suggestedName("https://openrouter.ai/api/v1")).toBe("openrouter");
    expect(suggestedName("https://api.openai.com/v1")).toBe("endpoint");
    expect(suggestedName("http://10.0.0.7:8080/v1")).toBe("endpoint");
  });

  test("which provider the flags mean", () => {
    expect(targetFromOptions({ provider: "anthropic" }, providers)).toMatchObject({ provider: "anthropic", api: "anthropic", modelId: "claude-haiku-4-5", keyOptional: false });
    expect(targetFromOptions({ provider: "anthropic", model: "anthropic/claude-sonnet-4-5" }, providers).modelId).toBe("claude-sonnet-4-5");
    expect(targetFromOptions({ provider: "local" }, providers)).toMatchObject({ baseUrl: "http://127.0.0.1:11434/v1", modelId: "qwen3", keyOptional: true });
    expect(targetFromOptions({ provider: "local" }, providers).endpoint).toBeUndefined();
    expect(targetFromOptions({ provider: "local", model: "llama3" }, providers).endpoint).toEqual({ baseUrl: "http://127.0.0.1:11434/v1", modelId: "llama3" });
    expect(targetFromOptions({ provider: "router", baseUrl: "https://openrouter.ai/api/v1", model: "meta-llama/llama-3-8b" }, providers)).toMatchObject({
      api: "openai-compatible",
      modelId: "meta-llama/llama-3-8b",
      endpoint: { baseUrl: "https://openrouter.ai/api/v1", modelId: "meta-llama/llama-3-8b" },
    });
    expect(refusal(() => targetFromOptions({ provider: "router" }, providers))).toContain("--base-url and --model");
    expect(refusal(() => targetFromOptions({ provider: "anthropic", baseUrl: "http://h/v1" }, providers))).toContain("ANTHROPIC_BASE_URL");
    expect(refusal(() => targetFromOptions({ provider: "anthropic", model: "openai/gpt-5" }, providers))).toContain('names provider "openai"');
    expect(refusal(() => targetFromOptions({ provider: "faux" }, providers))).toContain("needs no key");
    expect(refusal(() => targetFromOptions({ provider: "../etc" }, providers))).toContain("provider names");
  });

  test("a terminal method's args appended to the agent's command line make a login", () => {
    expect(parseCommandLine(["agent", "stdio", "--home", "/h", "--approval-mode", "yolo", "--no-session", "--model", "anthropic/claude-sonnet-4-5", "login"])).toMatchObject({
      command: "login",
      options: { home: "/h", model: "anthropic/claude-sonnet-4-5" },
    });
    expect(parseCommandLine(["login", "--provider", "x", "--base-url", "http://h/v1", "--model", "bare-id", "--no-verify"])).toMatchObject({
      command: "login",
      options: { provider: "x", baseUrl: "http://h/v1", model: "bare-id", noVerify: true },
    });
    expect(parseCommandLine(["logout", "anthropic"])).toMatchObject({ command: "logout", options: { provider: "anthropic" } });
    expect(() => parseCommandLine(["agent", "stdio", "--port", "1", "login"])).toThrow("does not apply");
    expect(() => parseCommandLine(["agent", "serve", "login"])).toThrow(UsageError);
    expect(() => parseCommandLine(["login", "--approval-mode", "yolo"])).toThrow("does not apply");
    expect(() => parseCommandLine(["logout", "a", "--provider", "b"])).toThrow("two providers");
    expect(() => parseCommandLine(["agent", "stdio", "--model", "bare-id"])).toThrow("provider/model");
  });
});
