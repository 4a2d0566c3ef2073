/**
 * The embedding snippets of the README, run as written on their runtime
 * (only the package name, the port and the home directory are filled in):
 * each serves health, refuses an upgrade without the token with its JSON
 * body, selects `agent-client-protocol.v1` when the token entry comes first,
 * and completes `initialize` over Streamable HTTP.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createHttpStream } from "@agentclientprotocol/sdk/experimental/http-client";
import { connectStream, initialize } from "../helpers/acp-client.ts";
import { spawn } from "node:child_process";
import { cleanEnv, makeSandbox, ROOT, RUNTIMES } from "../helpers/agent-process.ts";
import { waitFor } from "../helpers/expect-error.ts";
import { bearer, SUBPROTOCOL, TOKEN, tryUpgrade } from "../helpers/serve-process.ts";

const HEADINGS = { node: "// Node, with @hono/node-server", bun: "// Bun, with Bun.serve", deno: "// Deno, with Deno.serve" } as const;

/** The README code block that starts with this comment line. */
function snippet(heading: string): string {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const block = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!).find((code) => code.startsWith(`${heading}\n`));
  if (!block) throw new Error(`README has no snippet starting with ${heading}`);
  return block;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe.each(RUNTIMES)("the README's embedding snippet on %s", (runtime) => {
  test("serves every route of agent serve from the embedder's own server", async () => {
    const sandbox = makeSandbox();
    const port = await freePort();
    const entry = runtime === "node" ? pathToFileURL(join(ROOT, "dist", "mod.js")).href : pathToFileURL(join(ROOT, "mod.ts")).href;
    let code = snippet(HEADINGS[runtime]).replace('"acp-edge"', JSON.stringify(entry)).replace("port: 8711", `port: ${port}`);
    if (runtime === "node") code = code.replace('"@hono/node-server"', JSON.stringify(import.meta.resolve("@hono/node-server")));
    const file = sandbox.write(runtime === "node" ? "embed.mjs" : "embed.ts", code);
    const [command, ...args] = runtime === "node" ? ["node", file] : runtime === "bun" ? [join(ROOT, "node_modules", ".bin", "bun"), file] : [join(ROOT, "node_modules", ".bin", "deno"), "run", "-A", "--quiet", "--config", join(ROOT, "deno.json"), file];
    const child = spawn(command!, args, { cwd: ROOT, env: cleanEnv({ ACP_EDGE_HOME: sandbox.home, ACP_EDGE_TOKEN: TOKEN }), stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise((resolve) => child.on("exit", resolve));
    const url = `http://127.0.0.1:${port}`;
    try {
      let healthy = false;
      const polling = (async () => {
        while (!healthy && child.exitCode === null) {
          healthy = await fetch(`${url}/healthz`).then((r) => r.ok, () => false);
          if (!healthy) await new Promise((r) => setTimeout(r, 100));
        }
      })();
      await waitFor(() => healthy || child.exitCode !== null, 30_000, "the embedded server");
      await polling;
      expect({ exitCode: child.exitCode, stderr }).toEqual({ exitCode: null, stderr: expect.any(String) });

      const refused = await tryUpgrade(`ws://127.0.0.1:${port}/acp`, { protocols: [SUBPROTOCOL] });
      expect(refused.ok).toBe(false);
      if (!refused.ok) {
        expect(refused.status).toBe(401);
        expect(String(refused.headers["www-authenticate"])).toContain("Bearer");
        expect(JSON.parse(refused.body).error.code).toBe("unauthorized");
      }
      const opened = await tryUpgrade(`ws://127.0.0.1:${port}/acp`, { protocols: [`acp.bearer.${TOKEN}`, SUBPROTOCOL] });
      expect(opened).toMatchObject({ ok: true, protocol: SUBPROTOCOL });
      if (opened.ok) opened.ws.close();

      const overHttp = connectStream(createHttpStream(`${url}/acp`, { headers: bearer(TOKEN) }));
      expect((await initialize(overHttp)).protocolVersion).toBe(1);
      overHttp.close();
    } finally {
      child.kill("SIGKILL");
      await exited;
      sandbox.cleanup();
    }
  }, 60_000);
});
