import { describe, expect, test } from "bun:test";
import process from "node:process";
import { configuredProviders } from "../../src/config/providers.ts";
import { MIN_SECRET_LENGTH, StreamRedactor, redact, redactSecrets, redactValue, registerSecret } from "../../src/runtime/secrets.ts";

describe("redact", () => {
  test("hides registered secrets wherever they appear", () => {
    registerSecret("sk-test-1234567890");
    expect(redact("key sk-test-1234567890 and again sk-test-1234567890")).toBe("key [redacted] and again [redacted]");
  });

  test("hides bearer headers and api key fields even when not registered", () => {
    expect(redact('Authorization: Bearer abc.def-ghi')).toBe("Authorization: Bearer [redacted]");
    expect(redact('{"x-api-key":"zzz-unregistered"}')).toBe('{"x-api-key":"[redacted]"}');
  });

  test("ignores values too short to be secrets", () => {
    registerSecret("abc");
    expect(redact("abc")).toBe("abc");
  });
});

describe("secrets shorter than the minimum", () => {
  test("a value of MIN_SECRET_LENGTH characters counts, one shorter does not", () => {
    const short = "q".repeat(MIN_SECRET_LENGTH - 1);
    const exact = "w".repeat(MIN_SECRET_LENGTH);
    registerSecret(short);
    registerSecret(exact);
    expect(redactSecrets(`${short} ${exact}`)).toBe(`${short} [redacted]`);
  });
});

describe("redactSecrets", () => {
  test("hides a secret that contains another one whole", () => {
    registerSecret("inner-secret-1");
    registerSecret("outer-inner-secret-1-outer");
    expect(redactSecrets("x outer-inner-secret-1-outer y inner-secret-1")).toBe("x [redacted] y [redacted]");
  });

  test("hides the JSON-escaped spelling of a secret with quotes and backslashes", () => {
    const key = 'sk-"quoted"\\back\nslash';
    registerSecret(key);
    const line = JSON.stringify({ text: `before ${key} after` });
    expect(redactSecrets(line)).not.toContain(JSON.stringify(key).slice(1, -1));
    expect(JSON.parse(redactSecrets(line))).toEqual({ text: "before [redacted] after" });
  });
});

describe("redactValue", () => {
  test("hides secrets in nested strings and keys, before serialisation", () => {
    const key = 'sk-value-"with-quote"';
    registerSecret(key);
    const value = { a: [{ b: `x${key}y` }], [key]: 1, n: 3, t: true, z: null };
    expect(JSON.stringify(redactValue(value))).not.toContain("with-quote");
    expect(redactValue(value)).toEqual({ a: [{ b: "x[redacted]y" }], "[redacted]": 1, n: 3, t: true, z: null });
  });

  test("leaves the strings the caller keeps", () => {
    registerSecret("sk-kept-12345678");
    const value = { params: { content: "sk-kept-12345678", path: "sk-kept-12345678" } };
    const out = redactValue(value, (path) => path.join(".") === "params.content");
    expect(out).toEqual({ params: { content: "sk-kept-12345678", path: "[redacted]" } });
  });
});

describe("StreamRedactor", () => {
  const key = "sk-ant-stream-0123456789abcdef";
  registerSecret(key);
  const text = `line one\nthe key is ${key} and again ${key}\nend`;
  const expected = redactSecrets(text);

  test("hides a secret split at every offset between two pieces", () => {
    for (let cut = 0; cut <= text.length; cut++) {
      const stream = new StreamRedactor();
      const out = stream.push(text.slice(0, cut)) + stream.push(text.slice(cut)) + stream.end();
      expect(out).toBe(expected);
    }
  });

  test("hides a secret split at every pair of offsets between three pieces", () => {
    const start = text.indexOf(key);
    for (let a = start - 1; a <= start + key.length; a++) {
      for (let b = a; b <= start + key.length + 1; b++) {
        const stream = new StreamRedactor();
        const pieces = [text.slice(0, a), text.slice(a, b), text.slice(b)];
        const outs = pieces.map((piece) => stream.push(piece));
        outs.push(stream.end());
        for (const out of outs) expect(out).not.toContain(key.slice(0, 12));
        expect(outs.join("")).toBe(expected);
      }
    }
  });

  test("hides a secret arriving one character at a time", () => {
    const stream = new StreamRedactor();
    let out = "";
    for (const char of text) {
      out += stream.push(char);
      expect(stream.heldLength).toBeLessThan(key.length);
    }
    expect(out + stream.end()).toBe(expected);
  });

  test("passes text that cannot start a secret at once", () => {
    const stream = new StreamRedactor();
    expect(stream.push("progress 10%")).toBe("progress 10%");
    expect(stream.push(" then sk-ant")).toBe(" then ");
    expect(stream.heldLength).toBe("sk-ant".length);
    expect(stream.push("ique")).toBe("sk-antique");
    expect(stream.end()).toBe("");
  });
});

describe("registration when the configuration loads", () => {
  test("the key of every configured provider is registered, used or not", () => {
    const key = "sk-custom-provider-key-unused-1";
    process.env.ACP_EDGE_TEST_UNUSED_KEY = key;
    try {
      configuredProviders({ providers: { spare: { api: "openai-compatible", baseUrl: "http://127.0.0.1:9/v1", apiKeyEnv: "ACP_EDGE_TEST_UNUSED_KEY" } } });
      expect(redactSecrets(`KEY=${key}`)).toBe("KEY=[redacted]");
    } finally {
      delete process.env.ACP_EDGE_TEST_UNUSED_KEY;
    }
  });
});
