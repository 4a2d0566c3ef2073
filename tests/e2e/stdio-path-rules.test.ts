/**
 * Path rules cover every file a tool touches, not only its argument: grep
 * with no path, find and ls walk past denied and ask-first directories
 * without reading or naming what is inside them, on the wire and in the
 * session file alike.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { RUNTIMES } from "../helpers/agent-process.ts";
import { answering, finalStatus, startScenario, toolText } from "../helpers/scenario.ts";

const call = (id: string, name: string, input: Record<string, unknown>) => ({ toolCalls: [{ id, name, input }] });
const done = { text: "done" };

// Neither the value nor the file names appear in the script, so any trace of them is a leak.
const files = {
  "project/secrets/launch-codes.txt": "TOPSECRET=hunter2-value\n",
  "project/secrets/nested/vault-map.txt": "TOPSECRET=deeper-value\n",
  "project/drafts/unreleased-plan.txt": "TOPSECRET=draft-value\n",
  "project/src/main.ts": "// TOPSECRET is mentioned in public code\n",
};
const LEAKS = ["hunter2", "deeper-value", "draft-value", "launch-codes", "vault-map", "unreleased-plan"];

/** Every file below `dir`, read as text (the session files among them). */
function allText(dir: string): string {
  let text = "";
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    text += statSync(path).isDirectory() ? allText(path) : readFileSync(path, "utf8");
  }
  return text;
}

const script = [
  call("g1", "grep", { pattern: "TOPSECRET" }),
  call("f1", "find", { pattern: "*" }),
  call("l1", "ls", {}),
  call("l2", "ls", { path: "secrets" }),
  call("g2", "grep", { pattern: "TOPSECRET", path: "secrets/nested" }),
  done,
];

describe.each(RUNTIMES)("path rules on walks on %s", (runtime) => {
  for (const tools of [["read", "grep"], ["read"]]) {
    test(`grep, find and ls never reveal denied files or their content (rule naming ${tools.join(" and ")})`, async () => {
      const answers = answering("allow_once");
      const s = await startScenario(runtime, {
        script,
        settings: { permissionRules: [{ action: "deny", path: "secrets/", tools }, { action: "ask", path: "drafts/" }] },
        files,
        ...answers,
      });
      try {
        // A link with an innocent name, inside the project, to a denied file.
        symlinkSync(join(s.sandbox.project, "secrets", "launch-codes.txt"), join(s.sandbox.project, "src", "shortcut.txt"));
        expect((await s.prompt("look around")).stopReason).toBe("end_turn");
        // An ask rule met during a walk withholds silently; it never asks per file.
        expect(answers.requests).toHaveLength(0);

        expect(finalStatus(s.updates(), "g1")).toBe("completed");
        expect(toolText(s.updates(), "g1")).toContain("src/main.ts:1: // TOPSECRET is mentioned in public code");
        expect(toolText(s.updates(), "g1")).toContain("Some paths were not searched: permission rules in settings withhold them");
        expect(toolText(s.updates(), "f1")).toContain("src/main.ts");
        expect(toolText(s.updates(), "f1")).toContain("Some entries are not shown");
        expect(toolText(s.updates(), "l1")).toContain("src/");
        for (const id of ["f1", "l1"]) {
          expect(toolText(s.updates(), id)).not.toContain("secrets");
          expect(toolText(s.updates(), id)).not.toContain("drafts");
          expect(toolText(s.updates(), id)).not.toContain("shortcut");
        }
        // Naming the denied directory itself is refused by the rule, as before.
        for (const id of ["l2", "g2"]) {
          expect(finalStatus(s.updates(), id)).toBe("failed");
          expect(toolText(s.updates(), id)).toContain('deny path \\"secrets/\\"');
        }

        const wire = JSON.stringify(s.client.received);
        const stored = allText(s.sandbox.home);
        for (const leak of LEAKS) {
          expect(wire).not.toContain(leak);
          expect(stored).not.toContain(leak);
        }
        expect(stored).toContain("TOPSECRET is mentioned in public code");
      } finally {
        s.close();
      }
    });
  }

  test("once the user approves a walk an ask rule asked about, that rule no longer withholds below it", async () => {
    const answers = answering("allow_once");
    const s = await startScenario(runtime, {
      script: [call("g1", "grep", { pattern: "TOPSECRET", path: "drafts" }), done],
      settings: { permissionRules: [{ action: "deny", path: "secrets/" }, { action: "ask", path: "drafts/" }, { action: "ask", path: "drafts/private/" }] },
      files: { ...files, "project/drafts/private/diary.txt": "TOPSECRET=diary-value\n" },
      ...answers,
    });
    try {
      await s.prompt("grep the drafts");
      expect(answers.requests).toHaveLength(1);
      expect(toolText(s.updates(), "g1")).toContain("unreleased-plan.txt:1: TOPSECRET=draft-value");
      // A rule of its own below the approved path still withholds.
      expect(toolText(s.updates(), "g1")).not.toContain("diary");
      expect(toolText(s.updates(), "g1")).toContain("Some paths were not searched");
    } finally {
      s.close();
    }
  });
});
