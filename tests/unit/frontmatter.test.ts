/**
 * Frontmatter of command files and skills: real YAML where people write it
 * (folded descriptions, lists, maps), Claude Code's tolerance where they
 * write what YAML refuses (`argument-hint: [a] [b]`), and what a repository
 * can put there to hurt (alias bombs, deep nesting, tags, huge blocks) —
 * refused with a reason that quotes nothing of the file, never a throw. A
 * seeded fuzzer checks the same on random blocks.
 */
import { describe, expect, test } from "bun:test";
import { readFrontmatter } from "../../src/sessions/setup/frontmatter.ts";

const wrap = (block: string, body = "BODY\n") => `---\n${block}\n---\n${body}`;

async function fields(block: string) {
  const parsed = await readFrontmatter(wrap(block));
  if (!parsed.ok) throw new Error(`not parsed: ${parsed.why}`);
  return parsed.fields;
}

async function refusal(block: string): Promise<string> {
  const parsed = await readFrontmatter(wrap(block));
  if (parsed.ok) throw new Error("parsed");
  expect(parsed.body).toBe("BODY\n");
  return parsed.why;
}

describe("readFrontmatter", () => {
  test("lists as agent files write them: a comma list, a YAML list, a flow list; non-text items and blanks dropped", async () => {
    expect((await fields("tools: Read, Grep , Glob,")).list("tools")).toEqual(["Read", "Grep", "Glob"]);
    expect((await fields("tools:\n  - Read\n  - mcp__web__echo\n  - 42\n  - ''")).list("tools")).toEqual(["Read", "mcp__web__echo"]);
    expect((await fields("tools: [Read, Write]")).list("tools")).toEqual(["Read", "Write"]);
    expect((await fields("name: x")).list("tools")).toBeUndefined();
  });

  test("YAML as written in the wild: folded text, quoted values, lists and maps, flags", async () => {
    const f = await fields('name: pdf\ndescription: >-\n  Extract text\n  from PDFs.\nallowed-tools:\n  - Read\n  - Bash(python:*)\nmetadata:\n  author: "team"\ndisable-model-invocation: true\nuser-invocable: "false"');
    expect(f.text("name")).toBe("pdf");
    expect(f.text("description")).toBe("Extract text from PDFs.");
    expect(f.has("allowed-tools")).toBe(true);
    expect(f.text("metadata")).toBeUndefined();
    expect(f.flag("disable-model-invocation")).toBe(true);
    expect(f.flag("user-invocable")).toBe(false);
    expect(f.has("model")).toBe(false);
  });

  test("values YAML reads otherwise are taken as their author wrote them", async () => {
    // Two flow lists on one key (invalid YAML), one flow list, and a colon in a plain value (a nested map in YAML).
    const f = await fields("description: Fix: the parser\nargument-hint: [pr-number] [priority]\nallowed-tools: Bash(git add:*), Read");
    expect(f.text("description")).toBe("Fix: the parser");
    expect(f.text("argument-hint")).toBe("[pr-number] [priority]");
    expect((await fields("argument-hint: [message]")).text("argument-hint")).toBe("[message]");
    expect((await fields("argument-hint: [optional: value]")).text("argument-hint")).toBe("[optional: value]");
    expect((await fields("argument-hint: '<file> [--force]'")).text("argument-hint")).toBe("<file> [--force]");
  });

  test("no frontmatter, an empty one, an unclosed rule, a byte-order mark and CRLF lines", async () => {
    expect(await readFrontmatter("just text")).toMatchObject({ ok: true, body: "just text" });
    expect(await readFrontmatter("---\n---\nbody")).toMatchObject({ ok: true, body: "body" });
    expect(await readFrontmatter("---\nno closing rule\n")).toMatchObject({ ok: true, body: "---\nno closing rule\n" });
    const bom = await readFrontmatter("\uFEFF---\r\ndescription: crlf\r\n---\r\nbody\r\n");
    expect(bom.ok && bom.fields.text("description")).toBe("crlf");
    expect(bom.body).toBe("body\r\n");
  });

  test("what a repository can put there to hurt is refused by line and kind, quoting nothing", async () => {
    const bomb = ["a: &a [MARK, MARK, MARK]", ...Array.from({ length: 12 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`)].join("\n");
    expect(await refusal(bomb)).toBe("its frontmatter is not valid YAML (aliases are not allowed)");
    expect(await refusal("a: &x MARK\nb: *x")).toBe("its frontmatter is not valid YAML (aliases are not allowed)");
    expect(await refusal(`a: ${"[".repeat(7000)}${"]".repeat(7000)}`)).toBe("its frontmatter is nested too deeply");
    expect(await refusal(`a:\n${Array.from({ length: 100 }, (_, i) => `${" ".repeat(i + 1)}b${i}:`).join("\n")}`)).toBe("its frontmatter is nested too deeply");
    expect(await refusal("name: MARK\nname: MARK")).toBe("its frontmatter is not valid YAML (line 2: duplicate key)");
    expect(await refusal("secret: !!binary TUFSSw==\n  more: x")).toContain("not valid YAML");
    expect(await refusal("- MARK\n- list")).toBe("its frontmatter is not valid YAML (it is not a list of fields)");
    expect(await refusal(`description: ${"MARK ".repeat(4000)}`)).toBe("its frontmatter is larger than 16 KiB");
    for (const block of [bomb, "name: MARK\nname: MARK", "x:\n  - MARK\n y: [MARK"]) expect(await refusal(block)).not.toContain("MARK");
  });

  test("a __proto__ key is a field like any other and pollutes nothing", async () => {
    const f = await fields("__proto__: {polluted: MARK}\nconstructor: x");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(f.has("__proto__")).toBe(true);
    expect(f.has("toString")).toBe(false);
    expect(f.text("constructor")).toBe("x");
  });

  test("seeded fuzz: random blocks never throw, never hang, and a refusal never quotes the file", async () => {
    let seed = 0x5eed;
    const random = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
    const pick = <T,>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
    const tokens = ["MARK", "name", "description", ":", ": ", " ", "  ", "\n", "\n  ", "- ", "[", "]", "{", "}", ",", "&a ", "*a", "!!str ", "! ", "|", ">-", '"', "'", "#", "---", "...", "%YAML 1.2", "? ", "\t", "\\", "\u2028", "é"];
    for (let i = 0; i < 3000; i++) {
      const block = Array.from({ length: 1 + Math.floor(random() * 40) }, () => pick(tokens)).join("");
      const parsed = await readFrontmatter(wrap(block));
      if (!parsed.ok) expect(parsed.why, block).not.toContain("MARK");
      else for (const name of ["name", "description", "argument-hint", "MARK"]) expect(["string", "undefined"]).toContain(typeof parsed.fields.text(name));
    }
  });
});
