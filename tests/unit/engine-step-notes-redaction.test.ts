/**
 * What a call step says after a call (a hook's feedback) reaches the model,
 * the client and the journal: a key the agent knows is redacted from it
 * whether the call succeeded or threw.
 */
import { expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import { AgentSession } from "../../src/engine/session.ts";
import type { CallStep } from "../../src/engine/call-steps.ts";
import { catalogInfo } from "../../src/models/catalog.ts";
import { createFauxModel } from "../../src/models/faux.ts";
import { FauxScript } from "../../src/models/faux-script.ts";
import { registerSecret } from "../../src/runtime/secrets.ts";
import { createLocalWorkspace } from "../../src/tools/local-workspace.ts";
import type { ToolDefinition } from "../../src/tools/types.ts";

const SECRET = "sk-step-note-secret-0123456789abcdef";

/** A tool that fails when asked to, and succeeds otherwise. */
const tool = {
  name: "probe",
  description: "probe",
  promptSnippet: "probe",
  schema: v.object({ fail: v.boolean() }),
  kind: "other",
  describe: () => ({ title: "probe", locations: [] }),
  async execute(input: { fail: boolean }) {
    if (input.fail) throw new Error("the probe failed");
    return { content: [{ type: "text", text: "the probe ran" }] };
  },
} as unknown as ToolDefinition;

/** A step that reports on every call, naming the key (as a hook's stderr might). */
const noting: CallStep = {
  async before() {
    return async (outcome) => `step note: ${outcome.failure ?? "ok"} ${SECRET}`;
  },
};

for (const fail of [false, true]) {
  test(`a step's note after a call that ${fail ? "threw" : "succeeded"} is redacted for the model, the client and the journal`, async () => {
    registerSecret(SECRET);
    const events: unknown[] = [];
    const session = new AgentSession({
      id: "sess_step_notes",
      workspace: await createLocalWorkspace(mkdtempSync(join(tmpdir(), "acp-edge-step-notes-")), []),
      tools: [tool],
      steps: [noting],
      model: createFauxModel(catalogInfo("faux", "script"), new FauxScript([{ toolCalls: [{ id: "c1", name: "probe", input: { fail } }] }, { text: "end" }])),
      thinking: "off",
      systemPrompt: "test",
      maxTurnRequests: 5,
    });
    expect(await session.prompt([{ type: "text", text: "go" }], (event) => void events.push(event))).toBe("end_turn");
    const history = JSON.stringify(session.history);
    expect(history).toContain("step note:");
    expect(history).toContain("[redacted]");
    expect(history).not.toContain(SECRET);
    expect(JSON.stringify(events)).not.toContain(SECRET);
  });
}
