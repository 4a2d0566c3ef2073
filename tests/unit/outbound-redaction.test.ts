import { describe, expect, test } from "bun:test";
import { redactMessage } from "../../src/acp/connection/outbound-redaction.ts";
import { bounded } from "../../src/acp/updates/projection.ts";
import { titleFromPrompt } from "../../src/sessions/live-title.ts";
import { registerSecret } from "../../src/runtime/secrets.ts";

describe("redactMessage", () => {
  const key = "sk-outbound-0123456789";
  registerSecret(key);

  test("hides a key anywhere in a notification, a permission request or an error", () => {
    const update = { jsonrpc: "2.0", method: "session/update", params: { update: { content: [{ type: "diff", oldText: `K=${key}`, newText: `K=${key}\nX=1` }] } } };
    expect(JSON.stringify(redactMessage(update))).not.toContain(key);
    const error = { jsonrpc: "2.0", id: 3, error: { code: -32603, message: `bad key ${key}`, data: { detail: [key] } } };
    expect(redactMessage(error)).toEqual({ jsonrpc: "2.0", id: 3, error: { code: -32603, message: "bad key [redacted]", data: { detail: ["[redacted]"] } } });
  });

  test("keeps the content of a file written through the editor, and only that", () => {
    const write = { jsonrpc: "2.0", id: 4, method: "fs/write_text_file", params: { sessionId: "s", path: `/p/${key}`, content: `K=${key}\n` } };
    expect(redactMessage(write)).toEqual({ ...write, params: { sessionId: "s", path: "/p/[redacted]", content: `K=${key}\n` } });
    const other = { jsonrpc: "2.0", id: 5, method: "fs/read_text_file", params: { content: key } };
    expect(redactMessage(other)).toEqual({ ...other, params: { content: "[redacted]" } });
  });
});

describe("text cut for display", () => {
  const key = "sk-cut-for-display-0123456789";
  registerSecret(key);

  test("a large tool input is redacted before its preview is cut", () => {
    for (const pad of [8 * 1024 - 30, 8 * 1024 - 20, 8 * 1024 - 12]) {
      const preview = JSON.stringify(bounded({ content: `${"x".repeat(pad)}${key}${"y".repeat(100)}` }));
      expect(preview).toContain('"truncated":true');
      expect(preview).not.toContain(key.slice(0, 8));
    }
  });

  test("a title from a prompt is redacted before it is cut", () => {
    const title = titleFromPrompt(`please use the key ${"z".repeat(30)}${key} for everything`);
    expect(title).toBeDefined();
    expect(title).not.toContain(key.slice(0, 8));
  });
});
