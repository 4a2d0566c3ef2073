/**
 * Sets up and runs one session-file fuzz campaign: a fresh corpus session in
 * a temporary directory, the in-process agent for the full checks, the
 * fuzzer, and the clean-up. Shared by the CI test and the command line.
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startInProcessAgent } from "./session-file-agent.ts";
import { buildCorpusSession } from "./session-file-corpus.ts";
import { runSessionFileFuzz, type SessionFileFuzzReport } from "./session-file-fuzzer.ts";

export interface CampaignOptions {
  seed: number;
  count: number;
  fullEvery: number;
  onlyCase?: number;
  onProgress?: (done: number) => void;
}

/** Runs a campaign; throws SessionFileFuzzFailure on a broken invariant. */
export async function runSessionFileCampaign(options: CampaignOptions): Promise<SessionFileFuzzReport> {
  const root = mkdtempSync(join(realpathSync(tmpdir()), "acp-edge-fuzz-"));
  try {
    const corpus = await buildCorpusSession(root);
    const sessionDir = join(root, "sessions");
    const fullChecks = options.fullEvery > 0 ? Math.ceil(options.count / options.fullEvery) + 2 : 0;
    const agent =
      fullChecks > 0
        ? await startInProcessAgent({ home: join(root, "home"), sessionDir, steps: Array.from({ length: fullChecks }, () => ({ text: "ok" })) })
        : undefined;
    try {
      return await runSessionFileFuzz({
        seed: options.seed,
        count: options.count,
        corpus,
        sessionDir,
        fullEvery: options.fullEvery,
        ...(agent ? { agent } : {}),
        ...(options.onlyCase !== undefined ? { onlyCase: options.onlyCase } : {}),
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      });
    } finally {
      await agent?.close();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** A non-negative integer from the environment, or the default. */
export function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got ${raw}`);
  return value;
}
