import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { askRulesFor, createWalkFilter } from "../../src/permissions/walk-filter.ts";
import type { PermissionRule } from "../../src/config/settings-schema.ts";
import { walkFiles } from "../../src/tools/search/file-walker.ts";
import { findTool } from "../../src/tools/search/find.ts";
import { grepTool } from "../../src/tools/search/grep.ts";
import { createLocalWorkspace } from "../../src/tools/local-workspace.ts";
import { lsTool } from "../../src/tools/files/ls.ts";
import type { ToolContext, ToolResult, Workspace } from "../../src/tools/types.ts";

let base: string;
let root: string;
let workspace: Workspace;

function write(relative: string, text = "") {
  const path = join(root, relative);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

beforeAll(async () => {
  base = mkdtempSync(join(realpathSync(tmpdir()), "acp-walkfilter-"));
  root = join(base, "proj");
  write("secrets/key.txt", "TOPSECRET=1\n");
  write("secrets/public/readme.txt", "TOPSECRET mentioned in public\n");
  write("drafts/plan.txt", "TOPSECRET draft\n");
  write("src/main.ts", "// TOPSECRET is not here\n");
  // A link with an innocent name leading into the denied directory.
  symlinkSync(join(root, "secrets"), join(root, "innocent"));
  symlinkSync(join(root, "secrets", "key.txt"), join(root, "src", "key-link.txt"));
  workspace = await createLocalWorkspace(root, []);
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

const text = (result: ToolResult) => (result.content[0] as { type: "text"; text: string }).text;

function context(rules: PermissionRule[], tool: string): ToolContext {
  const pathFilter = createWalkFilter(rules, tool, root);
  return { workspace, signal: new AbortController().signal, ...(pathFilter ? { pathFilter } : {}) };
}

const readmeRule: PermissionRule[] = [{ action: "deny", path: "secrets/", tools: ["read", "grep"] }];
const readOnlyRule: PermissionRule[] = [{ action: "deny", path: "secrets/", tools: ["read"] }];

describe("createWalkFilter", () => {
  test("no filter when no deny or ask path rule applies to the tool", () => {
    expect(createWalkFilter([], "grep", root)).toBeUndefined();
    expect(createWalkFilter([{ action: "allow", path: "src" }], "grep", root)).toBeUndefined();
    expect(createWalkFilter([{ action: "deny", path: "secrets", tools: ["edit"] }], "grep", root)).toBeUndefined();
    expect(createWalkFilter([{ action: "deny", command: "cat" }], "grep", root)).toBeUndefined();
  });

  test("a rule naming read covers grep, find and ls; one naming grep covers only grep", () => {
    for (const tool of ["grep", "find", "ls"]) expect(createWalkFilter(readOnlyRule, tool, root)).toBeDefined();
    const grepOnly: PermissionRule[] = [{ action: "deny", path: "secrets/", tools: ["grep"] }];
    expect(createWalkFilter(grepOnly, "grep", root)).toBeDefined();
    expect(createWalkFilter(grepOnly, "find", root)).toBeUndefined();
  });

  test("deny and ask withhold, a longer allow wins, and either spelling of a path withholds it", () => {
    const rules: PermissionRule[] = [
      { action: "deny", path: "secrets" },
      { action: "allow", path: "secrets/public" },
      { action: "ask", path: "drafts" },
    ];
    const filter = createWalkFilter(rules, "grep", root)!;
    const at = (p: string) => join(root, p);
    expect(filter(at("secrets/key.txt"), at("secrets/key.txt"))).toBe(false);
    expect(filter(at("secrets"), at("secrets"))).toBe(false);
    expect(filter(at("secrets/public/readme.txt"), at("secrets/public/readme.txt"))).toBe(true);
    expect(filter(at("drafts/plan.txt"), at("drafts/plan.txt"))).toBe(false);
    expect(filter(at("src/main.ts"), at("src/main.ts"))).toBe(true);
    expect(filter(at("innocent/key.txt"), at("secrets/key.txt"))).toBe(false);
  });
});

describe("askRulesFor", () => {
  test("approving a call answers the ask rules deciding its argument, and no others", async () => {
    const drafts: PermissionRule = { action: "ask", path: "drafts" };
    const secrets: PermissionRule = { action: "ask", path: "secrets" };
    const rules = [drafts, secrets, { action: "deny", path: "secrets/public" } as PermissionRule];
    expect(await askRulesFor(rules, "grep", [join(root, "drafts")], root)).toEqual(new Set([drafts]));
    // Through a link: the rule deciding where it leads.
    expect(await askRulesFor(rules, "grep", [join(root, "innocent")], root)).toEqual(new Set([secrets]));
    expect(await askRulesFor(rules, "grep", [join(root, "src")], root)).toEqual(new Set());

    const filter = createWalkFilter(rules, "grep", root, new Set([drafts]))!;
    expect(filter(join(root, "drafts/plan.txt"), join(root, "drafts/plan.txt"))).toBe(true);
    expect(filter(join(root, "secrets/key.txt"), join(root, "secrets/key.txt"))).toBe(false);
    expect(createWalkFilter([drafts], "grep", root, new Set([drafts]))).toBeUndefined();
  });
});

describe("walks under path rules", () => {
  test("walkFiles neither yields nor enters a withheld directory, and says so", async () => {
    const filter = createWalkFilter(readmeRule, "grep", root);
    let withheld = 0;
    const seen: string[] = [];
    for await (const entry of walkFiles(root, { roots: workspace.roots, filter, onWithheld: () => withheld++ })) seen.push(entry.relativePath);
    expect(seen.sort()).toEqual(["drafts", "drafts/plan.txt", "src", "src/main.ts"]);
    // secrets/ and the link to the key (the link to secrets/ leads back into the walk and is skipped anyway).
    expect(withheld).toBe(2);
  });

  for (const [label, rules] of [["read and grep", readmeRule], ["read only", readOnlyRule]] as const) {
    test(`grep with no path shows nothing of a denied file (rule naming ${label})`, async () => {
      const result = await grepTool.execute({ pattern: "TOPSECRET" }, context([...rules], "grep"));
      expect(text(result)).not.toContain("TOPSECRET=1");
      expect(text(result)).not.toContain("secrets/");
      expect(text(result)).not.toContain("key");
      expect(text(result)).toContain("drafts/plan.txt:1: TOPSECRET draft");
      expect(text(result)).toContain("[Some paths were not searched: permission rules in settings withhold them]");
      expect(result.details).toMatchObject({ withheld: true });
    });

    test(`find and ls do not name denied entries (rule naming ${label})`, async () => {
      const found = text(await findTool.execute({ pattern: "*" }, context([...rules], "find")));
      expect(found).not.toContain("secrets");
      expect(found).not.toContain("key");
      expect(found).not.toContain("innocent");
      expect(found).toContain("src/main.ts");
      expect(found).toContain("[Some entries are not shown: permission rules in settings withhold them]");

      const listed = text(await lsTool.execute({}, context([...rules], "ls")));
      expect(listed.split("\n").slice(0, 3)).toEqual(["drafts/", "src/", ""]);
      expect(listed).toContain("[Some entries are not shown: permission rules in settings withhold them]");
      const inSrc = text(await lsTool.execute({ path: "src" }, context([...rules], "ls")));
      expect(inSrc).not.toContain("key-link");
    });
  }

  test("a rule naming only grep leaves find and ls alone", async () => {
    const rules: PermissionRule[] = [{ action: "deny", path: "secrets/", tools: ["grep"] }];
    expect(text(await findTool.execute({ pattern: "key.txt" }, context(rules, "find")))).toContain("secrets/key.txt");
    expect(text(await grepTool.execute({ pattern: "TOPSECRET=" }, context(rules, "grep")))).toContain("No matches found");
  });

  test("no note when nothing was withheld", async () => {
    const result = await grepTool.execute({ pattern: "TOPSECRET", path: "drafts" }, context(readmeRule, "grep"));
    expect(text(result)).not.toContain("permission rules");
    expect(text(await lsTool.execute({ path: "drafts" }, context(readmeRule, "ls")))).toBe("plan.txt");
  });
});
