/**
 * The test command: runs `bun test` over tests/ and ends with a plain
 * `N passed, N failed` line read from bun's JUnit report (bun's own summary
 * is not in that form). Extra arguments go to `bun test`.
 */
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dir, "..");
const resultsDir = join(root, ".test-results");
const report = join(resultsDir, "junit.xml");
mkdirSync(resultsDir, { recursive: true });
rmSync(report, { force: true });

const args = process.argv.slice(2);
const proc = Bun.spawn(
  [process.execPath, "test", "--timeout", "60000", "--reporter=junit", `--reporter-outfile=${report}`, ...(args.length ? args : ["tests/"])],
  { cwd: root, stdout: "inherit", stderr: "inherit", stdin: "ignore" },
);
const code = await proc.exited;

let passed = 0;
let failed = 0;
let skipped = 0;
try {
  const xml = readFileSync(report, "utf8");
  const root = /<testsuites\b[^>]*>/.exec(xml)?.[0] ?? "";
  const attr = (name: string) => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(root)?.[1] ?? 0);
  const total = attr("tests");
  failed = attr("failures") + attr("errors");
  skipped = attr("skipped");
  passed = total - failed - skipped;
} catch {
  failed = 1;
}
if (code !== 0 && failed === 0) failed = 1; // bun failed outside any test (load error, crash)
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(code === 0 && failed === 0 ? 0 : 1);
