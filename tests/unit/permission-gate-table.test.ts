/**
 * The permission gate as a table: hostile command lines × rules and
 * "always" answers × approval modes, each with the verdict it must get.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { evaluatePolicy } from "../../src/permissions/policy.ts";
import type { Grant } from "../../src/permissions/grants.ts";
import type { ApprovalMode, PermissionRule } from "../../src/config/settings-schema.ts";
import type { ToolAccess } from "../../src/tools/types.ts";

let cwd: string;
beforeAll(() => {
  cwd = realpathSync(mkdtempSync(join(tmpdir(), "acp-edge-gate-")));
});
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

const MODES: ApprovalMode[] = ["read-only", "ask", "write", "yolo"];
type Decision = "allow" | "ask" | "deny";
/** Verdicts in the order of MODES. */
type Row = [Decision, Decision, Decision, Decision];
const RUNS: Row = ["deny", "allow", "allow", "allow"];
const ASKS: Row = ["deny", "ask", "ask", "allow"];
const ASKS_EVEN_IN_YOLO: Row = ["deny", "ask", "ask", "ask"];
const REFUSED: Row = ["deny", "deny", "deny", "deny"];

const commandGrant = (prefixes: string[]): Grant => ({
  effect: "allow",
  class: "execute",
  scope: { kind: "command", prefixes },
  label: `Always allow \`${prefixes.join(" && ")}\` in this session`,
});

interface Setup {
  rules?: PermissionRule[];
  grants?: Grant[];
}
const SETUPS: Record<string, Setup> = {
  "allow rule npm test": { rules: [{ action: "allow", command: "npm test" }] },
  "allow rule echo hi": { rules: [{ action: "allow", command: "echo hi" }] },
  "always-allow echo hi": { grants: [commandGrant(["echo hi"])] },
  "deny rule touch": { rules: [{ action: "deny", command: "touch" }] },
  "deny rule rm -rf": { rules: [{ action: "deny", command: "rm -rf" }] },
  "always-reject touch": { grants: [{ effect: "deny", class: "execute", scope: { kind: "command", prefixes: ["touch"] }, label: "Always reject `touch` in this session" }] },
};

const TABLE: Array<[string, keyof typeof SETUPS, Row]> = [
  // What an allow rule covers: the same words, any further arguments, any quoting.
  ["npm test", "allow rule npm test", RUNS],
  ["npm test -- --watch", "allow rule npm test", RUNS],
  [`"npm" 'test'`, "allow rule npm test", RUNS],
  ["n\\pm te\\st", "allow rule npm test", RUNS],
  ["npm test 2>&1", "allow rule npm test", RUNS],
  ["npm test >/dev/null 2>&1 </dev/null", "allow rule npm test", RUNS],
  ["npm test; npm test --coverage", "allow rule npm test", RUNS],
  ["npm tester", "allow rule npm test", ASKS],
  ["npm", "allow rule npm test", ASKS],
  ["./npm test", "allow rule npm test", ASKS],
  ["/opt/tools/npm test", "allow rule npm test", ASKS],
  // Quoting it cannot account for.
  ["npm test $'\\'' ; touch X", "allow rule npm test", ASKS],
  ["npm test $'x'", "allow rule npm test", ASKS],
  [`npm test $"x"`, "allow rule npm test", ASKS],
  ["npm test 'unbalanced", "allow rule npm test", ASKS],
  [`npm test "unbalanced`, "allow rule npm test", ASKS],
  [`npm test "a\\`, "allow rule npm test", ASKS],
  ["npm test \\", "allow rule npm test", ASKS],
  ["npm test 'a\0b'", "allow rule npm test", ASKS],
  [`npm test "fix!"`, "allow rule npm test", ASKS],
  // Comments, here-documents, line continuations.
  ["npm test # comment", "allow rule npm test", ASKS],
  ["npm test #'\ntouch X\n#'", "allow rule npm test", ASKS],
  ["npm test a#b", "allow rule npm test", ASKS],
  ["npm test <<EOF\ntouch X\nEOF", "allow rule npm test", ASKS],
  ["npm test <<'EOF'\nx\nEOF", "allow rule npm test", ASKS],
  ["npm test <<<x", "allow rule npm test", ASKS],
  ["npm test \\\n; touch X", "allow rule npm test", ASKS],
  // Substitutions and expansions.
  ["npm test $(touch X)", "allow rule npm test", ASKS],
  ["npm test `touch X`", "allow rule npm test", ASKS],
  [`npm test "$(touch X)"`, "allow rule npm test", ASKS],
  ['npm test "`touch X`"', "allow rule npm test", ASKS],
  ["npm test <(touch X)", "allow rule npm test", ASKS],
  ["npm test >(touch X)", "allow rule npm test", ASKS],
  ["npm test $((1+2))", "allow rule npm test", ASKS],
  ["npm test $HOME", "allow rule npm test", ASKS],
  [`npm test "$HOME"`, "allow rule npm test", ASKS],
  ["npm test ${HOME}", "allow rule npm test", ASKS],
  ["npm test $1", "allow rule npm test", ASKS],
  ["$NPM test", "allow rule npm test", ASKS],
  ["npm test *", "allow rule npm test", ASKS],
  ["npm test [ab]", "allow rule npm test", ASKS],
  ["np? test", "allow rule npm test", ASKS],
  ["npm test {a,b}", "allow rule npm test", ASKS],
  ["npm test ~/x", "allow rule npm test", ASKS],
  ["=npm test", "allow rule npm test", ASKS],
  // Redirections it cannot account for.
  ["npm test > out.txt", "allow rule npm test", ASKS],
  ["npm test >> out.txt", "allow rule npm test", ASKS],
  ["npm test < in.txt", "allow rule npm test", ASKS],
  ["npm test &> out.txt", "allow rule npm test", ASKS],
  ["npm test >&out.txt", "allow rule npm test", ASKS],
  ["npm test 2>&1x", "allow rule npm test", ASKS],
  ["npm test >| out.txt", "allow rule npm test", ASKS],
  ["npm test 3<> f", "allow rule npm test", ASKS],
  ["> out.txt", "allow rule npm test", ASKS],
  // Separators carry other commands.
  ["npm test; touch X", "allow rule npm test", ASKS],
  ["npm test && touch X", "allow rule npm test", ASKS],
  ["npm test || touch X", "allow rule npm test", ASKS],
  ["npm test | touch X", "allow rule npm test", ASKS],
  ["npm test & touch X", "allow rule npm test", ASKS],
  ["npm test\ntouch X", "allow rule npm test", ASKS],
  ["npm test\rtouch X", "allow rule npm test", ASKS],
  ["npm test |& touch X", "allow rule npm test", ASKS],
  ["npm test ;; touch X", "allow rule npm test", ASKS],
  ["; npm test", "allow rule npm test", ASKS],
  // Assignments, keywords, subshells, and commands that run other commands.
  ["FOO=1 npm test", "allow rule npm test", ASKS],
  ["NODE_OPTIONS=--require=./x.js npm test", "allow rule npm test", ASKS],
  [`PATH="." npm test`, "allow rule npm test", ASKS],
  ["if npm test; then touch X; fi", "allow rule npm test", ASKS],
  ["! npm test", "allow rule npm test", ASKS],
  ["time npm test", "allow rule npm test", ASKS],
  ["(npm test)", "allow rule npm test", ASKS],
  ["{ npm test; }", "allow rule npm test", ASKS],
  ["f() { touch X; }; npm test", "allow rule npm test", ASKS],
  ["alias npm=touch; npm test", "allow rule npm test", ASKS],
  ["eval npm test", "allow rule npm test", ASKS],
  ["exec npm test", "allow rule npm test", ASKS],
  ["sh -c 'npm test'", "allow rule npm test", ASKS],
  [`bash -c "npm test"`, "allow rule npm test", ASKS],
  ["env npm test", "allow rule npm test", ASKS],
  ["/usr/bin/env npm test", "allow rule npm test", ASKS],
  ["command npm test", "allow rule npm test", ASKS],
  ["nohup npm test", "allow rule npm test", ASKS],
  ["sudo npm test", "allow rule npm test", ASKS],
  ["SUDO touch x", "deny rule touch", REFUSED],
  ["echo x | xargs npm test", "allow rule npm test", ASKS],
  ["find . -exec npm test {} ;", "allow rule npm test", ASKS],
  ["source x.sh; npm test", "allow rule npm test", ASKS],
  ["export PATH=.; npm test", "allow rule npm test", ASKS],
  // The comment trick of the issue under a rule and under an "always" answer.
  ["echo hi", "allow rule echo hi", RUNS],
  ["echo hi there", "allow rule echo hi", RUNS],
  ["echo hi #'\ntouch Y\n#'", "allow rule echo hi", ASKS],
  ["echo hi", "always-allow echo hi", RUNS],
  ["echo 'hi'", "always-allow echo hi", RUNS],
  ["echo hi $'\\'' ; touch X", "always-allow echo hi", ASKS],
  ["echo hi #'\ntouch Y\n#'", "always-allow echo hi", ASKS],
  ["echo hi; touch X", "always-allow echo hi", ASKS],
  ["echo hi > out.txt", "always-allow echo hi", ASKS],
  // A deny rule sees every spelling of the command it can recognise.
  ["touch x", "deny rule touch", REFUSED],
  [`"touch" x`, "deny rule touch", REFUSED],
  ["'touch' x", "deny rule touch", REFUSED],
  [`t"ou"ch x`, "deny rule touch", REFUSED],
  ["\\touch x", "deny rule touch", REFUSED],
  ["/usr/bin/touch x", "deny rule touch", REFUSED],
  ["./touch x", "deny rule touch", REFUSED],
  ["TOUCH x", "deny rule touch", REFUSED],
  ["=touch x", "deny rule touch", REFUSED],
  ["$'touch' x", "deny rule touch", REFUSED],
  ["$'\\x74ouch' x", "deny rule touch", REFUSED],
  ["echo hi; touch x", "deny rule touch", REFUSED],
  ["echo hi #'\ntouch x\n#'", "deny rule touch", REFUSED],
  ["echo $(touch x)", "deny rule touch", REFUSED],
  ["echo `touch x`", "deny rule touch", REFUSED],
  ["cat <(touch x)", "deny rule touch", REFUSED],
  ["(touch x)", "deny rule touch", REFUSED],
  ["{ touch x; }", "deny rule touch", REFUSED],
  ["if true; then touch x; fi", "deny rule touch", REFUSED],
  ["FOO=1 touch x", "deny rule touch", REFUSED],
  ["time touch x", "deny rule touch", REFUSED],
  ["- touch x", "deny rule touch", REFUSED],
  ["sudo -u root touch x", "deny rule touch", REFUSED],
  ["env FOO=1 touch x", "deny rule touch", REFUSED],
  ["nohup touch x &", "deny rule touch", REFUSED],
  ["echo x | xargs touch", "deny rule touch", REFUSED],
  ["find . -name a -exec touch {} ;", "deny rule touch", REFUSED],
  ["sh -c 'touch x'", "deny rule touch", REFUSED],
  [`bash -c "echo; touch x"`, "deny rule touch", REFUSED],
  ["eval touch x", "deny rule touch", REFUSED],
  [`eval "touch x"`, "deny rule touch", REFUSED],
  ["echo hi \\\ntouch x", "deny rule touch", REFUSED],
  ["echo 'touch x", "deny rule touch", REFUSED],
  // Text that only mentions the command is not the command.
  ["echo touch", "deny rule touch", ASKS],
  ["git commit -m 'touch x'", "deny rule touch", ASKS],
  // A command built at run time cannot be recognised: it asks, even in yolo, because a deny rule exists.
  ["$(printf touch) x", "deny rule touch", ASKS_EVEN_IN_YOLO],
  ["t?uch x", "deny rule touch", ASKS_EVEN_IN_YOLO],
  ["$CMD x", "deny rule touch", ASKS_EVEN_IN_YOLO],
  ["echo $HOME", "deny rule touch", ASKS_EVEN_IN_YOLO],
  // An "Always reject" answer matches like a deny rule.
  ["touch x", "always-reject touch", REFUSED],
  [`"touch" x`, "always-reject touch", REFUSED],
  ["/usr/bin/touch x", "always-reject touch", REFUSED],
  ["sudo touch x", "always-reject touch", REFUSED],
  ["echo hi #'\ntouch x\n#'", "always-reject touch", REFUSED],
  ["echo touch", "always-reject touch", ASKS],
  ["$(printf touch) x", "always-reject touch", ASKS_EVEN_IN_YOLO],
  // Options of the README's `rm -rf` rule in any order, grouping and case; long forms are other words.
  ["rm -rf build", "deny rule rm -rf", REFUSED],
  ["rm -r -f build", "deny rule rm -rf", REFUSED],
  ["rm -fr build", "deny rule rm -rf", REFUSED],
  ["rm -f -r build", "deny rule rm -rf", REFUSED],
  ["rm -rfv build", "deny rule rm -rf", REFUSED],
  ["rm -Rf build", "deny rule rm -rf", REFUSED],
  ["rm build -rf", "deny rule rm -rf", REFUSED],
  [`"rm" '-rf' build`, "deny rule rm -rf", REFUSED],
  ["/bin/rm -rf build", "deny rule rm -rf", REFUSED],
  ["echo ok; rm -rf important", "deny rule rm -rf", REFUSED],
  ["rm -r build", "deny rule rm -rf", ASKS],
  ["rm --recursive --force build", "deny rule rm -rf", ASKS],
];

describe("command lines × rules and answers × modes", () => {
  for (const [line, setupName, row] of TABLE) {
    test(`${setupName}: ${JSON.stringify(line)}`, async () => {
      const setup = SETUPS[setupName]!;
      const access: ToolAccess = { class: "execute", command: line };
      const got = await Promise.all(
        MODES.map(async (mode) => (await evaluatePolicy({ toolName: "bash", access, mode, rules: setup.rules ?? [], grants: setup.grants ?? [], cwd, roots: [cwd] })).decision),
      );
      expect(Object.fromEntries(MODES.map((m, i) => [m, got[i]]))).toEqual(Object.fromEntries(MODES.map((m, i) => [m, row[i]])));
    });
  }

  // With a sandbox, auto and read-only modes run what rules and answers do not refuse or ask about — except a
  // line they cannot check (it asks); a call asking to leave the sandbox asks whatever allows it.
  for (const [line, setupName, row] of TABLE) {
    test(`with a sandbox, ${setupName}: ${JSON.stringify(line)}`, async () => {
      const setup = SETUPS[setupName]!;
      const sandbox = { mode: "auto" as const, available: true };
      const verdict = async (mode: ApprovalMode, access: ToolAccess, setting: "auto" | "on" = "auto") =>
        (await evaluatePolicy({ toolName: "bash", access, mode, rules: setup.rules ?? [], grants: setup.grants ?? [], cwd, roots: [cwd], sandbox: { ...sandbox, mode: setting } })).decision;
      const confined: Decision = row === REFUSED ? "deny" : row === ASKS_EVEN_IN_YOLO ? "ask" : "allow";
      expect(await verdict("auto", { class: "execute", command: line })).toBe(confined);
      expect(await verdict("read-only", { class: "execute", command: line })).toBe(confined);
      const escalated: ToolAccess = { class: "execute", command: line, outsideSandbox: { reason: "r" } };
      expect(await verdict("auto", escalated)).toBe(row === REFUSED ? "deny" : "ask");
      // Asking to leave the sandbox asks in write mode too, whether or not its commands would be confined.
      expect(await verdict("write", escalated)).toBe(row === REFUSED ? "deny" : "ask");
      expect(await verdict("write", escalated, "on")).toBe(row === REFUSED ? "deny" : "ask");
      expect(await verdict("write", { class: "execute", command: line }, "on")).toBe(row[2]);
      expect(await verdict("read-only", escalated)).toBe("deny");
      expect(await verdict("yolo", escalated)).toBe(row[3]);
    });
  }

  test("a deny in read-only mode names the rule; an unaccounted line is never offered an always-allow", async () => {
    const rules: PermissionRule[] = [{ action: "deny", command: "touch" }];
    const verdict = await evaluatePolicy({ toolName: "bash", access: { class: "execute", command: "/usr/bin/touch x" }, mode: "read-only", rules, grants: [], cwd, roots: [cwd] });
    expect(verdict.decision === "deny" && verdict.reason).toContain('deny command "touch"');
    const asked = await evaluatePolicy({ toolName: "bash", access: { class: "execute", command: "npm test $'x'" }, mode: "ask", rules: [], grants: [], cwd, roots: [cwd] });
    expect(asked.decision === "ask" && asked.offer.allow).toBeUndefined();
    expect(asked.decision === "ask" && asked.offer.reject.label).toBe("Always reject `npm test x` in this session");
  });
});

describe("read-only × rules and answers", () => {
  const editGrant: Grant = { effect: "allow", class: "edit", scope: { kind: "roots" }, label: "Always allow edits in this session" };
  const echoGrant = commandGrant(["echo hi"]);
  const toolGrant: Grant = { effect: "allow", class: "other", scope: { kind: "tool", name: "mcp__gh__create_issue" }, label: "Always allow mcp__gh__create_issue in this session" };
  const cases: Array<[string, ToolAccess, string, Setup, Row]> = [
    ["edit under an always-allow", { class: "edit", paths: ["a.txt"] }, "write", { grants: [editGrant] }, RUNS],
    ["edit under an allow rule", { class: "edit", paths: ["a.txt"] }, "edit", { rules: [{ action: "allow", path: "." }] }, RUNS],
    ["edit under an ask rule", { class: "edit", paths: ["a.txt"] }, "edit", { rules: [{ action: "ask", path: "." }], grants: [editGrant] }, ["deny", "ask", "ask", "ask"]],
    ["edit under a deny rule", { class: "edit", paths: ["a.txt"] }, "edit", { rules: [{ action: "deny", path: "." }], grants: [editGrant] }, REFUSED],
    ["command under an always-allow", { class: "execute", command: "echo hi" }, "bash", { grants: [echoGrant] }, RUNS],
    ["command under a tool allow rule", { class: "execute", command: "ls" }, "bash", { rules: [{ action: "allow", tools: ["bash"] }] }, RUNS],
    ["other tool under an always-allow", { class: "other" }, "mcp__gh__create_issue", { grants: [toolGrant] }, RUNS],
    ["other tool under an allow rule", { class: "other" }, "mcp__gh__create_issue", { rules: [{ action: "allow", tools: ["mcp__gh__*"] }] }, RUNS],
    ["read under a deny rule", { class: "read", paths: ["secrets/k"] }, "read", { rules: [{ action: "deny", path: "secrets/" }] }, REFUSED],
    ["read inside", { class: "read", paths: ["a.txt"] }, "read", {}, ["allow", "allow", "allow", "allow"]],
  ];
  for (const [name, raw, tool, setup, row] of cases) {
    test(name, async () => {
      const access: ToolAccess = raw.paths ? { ...raw, paths: raw.paths.map((p) => join(cwd, p)) } : raw;
      const got = await Promise.all(
        MODES.map(async (mode) => (await evaluatePolicy({ toolName: tool, access, mode, rules: setup.rules ?? [], grants: setup.grants ?? [], cwd, roots: [cwd] })).decision),
      );
      expect(got).toEqual(row);
    });
  }

  test("switching back from read-only restores the answers", async () => {
    const grants: Grant[] = [{ effect: "allow", class: "edit", scope: { kind: "roots" }, label: "Always allow edits in this session" }];
    const access: ToolAccess = { class: "edit", paths: [join(cwd, "a.txt")] };
    const at = (mode: ApprovalMode) => evaluatePolicy({ toolName: "write", access, mode, rules: [], grants, cwd, roots: [cwd] });
    expect((await at("ask")).decision).toBe("allow");
    const refused = await at("read-only");
    expect(refused.decision === "deny" && refused.reason).toContain("read-only mode");
    expect((await at("ask")).decision).toBe("allow");
  });
});
