/**
 * `acp-edge models`: every known model, its context window and whether it
 * has credentials (and if not, how to give it some).
 * @module
 */
import { printOut } from "../runtime/log.ts";
import type { AgentServices } from "../sessions/services.ts";

export async function runModelsCommand(services: AgentServices): Promise<number> {
  // Also loads the clouds' credential checks.
  await services.registry.refresh();
  const rows = services.registry.list();
  const width = Math.max(...rows.map((r) => r.spec.length), 5);
  const lines = [`${"MODEL".padEnd(width)}  CONTEXT   CREDENTIALS`];
  for (const row of rows) {
    const context = `${Math.round(row.info.contextWindow / 1000)}k`.padEnd(8);
    const credentials = row.credential.ok ? `yes (${row.credential.source})` : `no — ${row.credential.hint}`;
    lines.push(`${row.spec.padEnd(width)}  ${context}  ${credentials}`);
  }
  printOut(`${lines.join("\n")}\n`);
  return 0;
}
