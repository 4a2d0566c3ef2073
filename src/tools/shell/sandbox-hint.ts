/**
 * The note a confined command's result carries when it failed because of
 * the sandbox, telling the model what the sandbox stops and how to ask for
 * a run outside it.
 * @module
 */
import { sandboxBlock } from "../../runtime/sandbox/sandbox-failure.ts";
import type { SandboxSpec } from "../../runtime/sandbox/sandbox-spec.ts";

/** The note, or undefined when the output does not show the sandbox stopped the command. */
export function sandboxHint(output: string, sandbox: SandboxSpec): string | undefined {
  const block = sandboxBlock(output, sandbox);
  if (!block) return undefined;
  const what =
    block === "files"
      ? `it may write only under ${sandbox.writable.join(", ")}, and some secrets are hidden`
      : "it has no network (loopback included)";
  return `[This command ran in the sandbox, and it looks like the sandbox stopped it: ${what}. If it must run anyway, call bash again with outsideSandbox: true and a reason; the user is asked first (read-only mode refuses it).]`;
}
