/**
 * grep's and find's engines load on the first search, not with the tools:
 * used before that they fail with a clear message; a search loads them.
 */
import { expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "../helpers/agent-process.ts";

test("an engine used before loadSearchEngines() fails clearly; after it, it works", () => {
  // In a fresh process: in this one, other tests may have loaded the engines already.
  const script = `
    import { searchEngines, loadSearchEngines } from ${JSON.stringify(join(ROOT, "src", "tools", "search", "search-engines.ts"))};
    import { compileLinearRegex } from ${JSON.stringify(join(ROOT, "src", "tools", "search", "linear-regex.ts"))};
    let before = "";
    try { compileLinearRegex("a+", {}); } catch (error) { before = error.message; }
    await loadSearchEngines();
    console.log(JSON.stringify({ before, after: compileLinearRegex("a+", {}).test("caab"), picomatch: typeof searchEngines().picomatch.makeRe }));
  `;
  const result = spawnSync(process.execPath, ["-e", script], { encoding: "utf8" });
  expect(result.stderr).toBe("");
  expect(JSON.parse(result.stdout)).toEqual({ before: "the search engines were used before loadSearchEngines() finished", after: true, picomatch: "function" });
});
