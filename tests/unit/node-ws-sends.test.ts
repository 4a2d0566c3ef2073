/**
 * Node's WebSocket sends (`nodeWsSends`: `ws.send` of UTF-8 bytes shared by
 * a fan-out's clients, `ws.close`), run on Node against real clients over
 * real sockets: messages arrive unchanged and as text at every payload-length
 * boundary and in a seeded run; a fan-out's clients each get the update
 * whole; order holds next to `ws`'s own frames and closes; nothing is sent
 * after a close.
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../helpers/agent-process.ts";

/** Bundles tests/helpers/node-ws-sends-check.ts for Node and runs it in `mode`; its JSON line. */
async function runOnNode(mode: string): Promise<unknown> {
  const { build } = await import("esbuild");
  const dir = mkdtempSync(join(tmpdir(), "node-ws-sends-"));
  try {
    const script = join(dir, "check.mjs");
    await build({
      entryPoints: [join(ROOT, "tests", "helpers", "node-ws-sends-check.ts")],
      bundle: true,
      platform: "node",
      format: "esm",
      outfile: script,
      external: ["bufferutil", "utf-8-validate"],
      banner: { js: 'import{createRequire as __cr}from"node:module";const require=__cr(import.meta.url);' },
      logLevel: "error",
    });
    const run = spawnSync("node", [script, mode], { encoding: "utf8", timeout: 30_000 });
    expect(run.stderr).toBe("");
    return JSON.parse(run.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("messages arrive whole, as text", () => {
  test("each payload-length boundary, UTF-8 lengths and a seeded run of 200 texts arrive unchanged", async () => {
    expect(await runOnNode("texts")).toEqual({ sent: 213, received: 213, binary: 0, changed: [] });
  });

  test("one large update sent to 16 clients in a row reaches each of them whole", async () => {
    expect(await runOnNode("fan-out")).toEqual({ clients: 16, intact: 16 });
  });
});

describe("order next to ws's own frames and closes", () => {
  test("a message ws is still compressing goes out before the ones sent after it", async () => {
    expect(await runOnNode("compressed")).toEqual({ extensions: "permessage-deflate", received: ["first", "second", "third"] });
  });

  test("a close goes out after the messages sent before it in the same tick", async () => {
    expect(await runOnNode("close")).toEqual({ received: ["one", "two"], code: 1000, reason: "done" });
  });

  test("an answer to a request that arrived with the client's close frame still reaches the client", async () => {
    expect(await runOnNode("peer-close")).toEqual({ received: ["answer to request"], code: 1000 });
  });

  test("large messages keep their place among the small ones sent around them", async () => {
    expect(await runOnNode("mixed")).toEqual({ received: ["small 1", "large", "small 2", "small 3", "large", "small 4"] });
  });

  test("nothing goes out after a close, and a send after it does not throw", async () => {
    expect(await runOnNode("after-close")).toEqual({ frames: [{ text: "before" }, { close: 1000 }], threw: false });
  });
});
