// The browser console's size and load time: bytes of the page and its files as
// served, and the median time from navigation to the sessions list shown (and
// to the load event) in headless Chromium against `node dist/cli.js agent serve`.
// Usage: npm run build && node bench/console-load.mjs [runs]   (needs /usr/bin/chromium)
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";
import { benchEnv } from "./clean-env.mjs";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..");
const runs = Number(process.argv[2] ?? 10);
const work = mkdtempSync(join(tmpdir(), "acp-edge-console-bench-"));
const token = "bench-token-0123456789abcdef";
const server = spawn(process.execPath, [join(root, "dist", "cli.js"), "agent", "serve", "--port", "0", "--model", "faux/script"], {
  env: benchEnv({ ACP_EDGE_HOME: join(work, "home"), ACP_EDGE_TOKEN: token }),
  stdio: ["ignore", "ignore", "pipe"],
});
let stderr = "";
const url = await new Promise((done, fail) => {
  server.stderr.on("data", (d) => {
    stderr += d;
    const m = /listening on (http:\/\/\S+)/.exec(stderr);
    if (m) done(m[1]);
  });
  server.once("exit", () => fail(new Error(`the server exited: ${stderr}`)));
});
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];

try {
  let total = 0;
  let gzipped = 0;
  for (const path of ["/", "/console/console.css", "/console/console.js"]) {
    const body = Buffer.from(await (await fetch(url + path)).arrayBuffer());
    total += body.length;
    gzipped += gzipSync(body, { level: 9 }).length;
    console.log(`${path.padEnd(24)} ${body.length} bytes`);
  }
  console.log(`${"total".padEnd(24)} ${total} bytes (${gzipped} gzip)`);

  const browser = await chromium.launch({
    executablePath: process.env.ACP_EDGE_CHROMIUM ?? "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const listed = [];
  const loaded = [];
  for (let i = 0; i < runs + 1; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    const start = Date.now();
    await page.goto(`${url}/#token=${token}`);
    await page.getByText("No sessions yet.").waitFor();
    const took = Date.now() - start;
    const load = await page.evaluate(() => performance.getEntriesByType("navigation")[0].loadEventEnd);
    if (i > 0) listed.push(took), loaded.push(load); // the first run warms the browser
    await context.close();
  }
  await browser.close();
  console.log(`median of ${runs}: load event ${Math.round(median(loaded))} ms, sessions list shown ${median(listed)} ms after navigation started`);
} finally {
  server.kill("SIGKILL");
  rmSync(work, { recursive: true, force: true });
}
