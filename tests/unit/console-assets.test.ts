/**
 * The console's embedded assets: the generated module matches the files it
 * is made from (run `npm run console:assets` after editing them), and the
 * script never turns strings into HTML.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
// @ts-expect-error: a plain .mjs build script without type declarations
import { ASSETS_MODULE, renderAssetsModule } from "../../scripts/console-assets.mjs";
import { CONSOLE_JS } from "../../src/server/console/assets.ts";

describe("console assets", () => {
  test("src/server/console/assets.ts is up to date with console/index.html, console.css and console.js", () => {
    expect(readFileSync(ASSETS_MODULE, "utf8")).toBe(renderAssetsModule());
  });

  test("the script builds the page with DOM calls only, never from HTML strings", () => {
    expect(CONSOLE_JS).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|createContextualFragment|\beval\(|new Function/);
  });
});
