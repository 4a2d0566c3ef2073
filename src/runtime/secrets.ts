/**
 * A process-wide list of secret values (API keys, bearer tokens) that must
 * never be printed. Everything that leaves the process as text — logs, error
 * messages, tool output from provider errors — passes through `redact`.
 * @module
 */

const secrets = new Set<string>();

/** Remembers a secret so that `redact` hides it. Short values are ignored: they would mask ordinary text. */
export function registerSecret(value: string | undefined): void {
  if (value && value.length >= 8) secrets.add(value);
}

/** Replaces every registered secret, and anything shaped like a bearer or API key header, with `[redacted]`. */
export function redact(text: string): string {
  let out = text;
  for (const secret of secrets) {
    if (out.includes(secret)) out = out.split(secret).join("[redacted]");
  }
  return out
    .replace(/(authorization["']?\s*[:=]\s*["']?bearer\s+)[^\s"',}]+/gi, "$1[redacted]")
    .replace(/((?:x-api-key|api[-_]key)["']?\s*[:=]\s*["']?)[^\s"',}]+/gi, "$1[redacted]");
}
