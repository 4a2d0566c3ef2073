import { describe, expect, test } from "bun:test";
import { redact, registerSecret } from "../../src/runtime/secrets.ts";

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
