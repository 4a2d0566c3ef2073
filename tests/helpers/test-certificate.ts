/**
 * A throwaway self-signed certificate for 127.0.0.1, made with `openssl`,
 * and the environment that makes an agent trust it: `NODE_EXTRA_CA_CERTS`
 * (Node and Bun) and `DENO_CERT` (Deno). Nothing else trusts it.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TestCertificate {
  key: string;
  cert: string;
  /** Environment for an agent that should trust it. */
  trustEnv: Record<string, string>;
  remove(): void;
}

/** Why no certificate can be made here, or undefined. */
export function certificateUnavailable(): string | undefined {
  return spawnSync("openssl", ["version"]).status === 0 ? undefined : "openssl is not installed";
}

export function makeTestCertificate(): TestCertificate {
  const dir = mkdtempSync(join(tmpdir(), "acp-edge-cert-"));
  const keyFile = join(dir, "key.pem");
  const certFile = join(dir, "cert.pem");
  const made = spawnSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-days", "1", "-keyout", keyFile, "-out", certFile]);
  if (made.status !== 0) throw new Error(`openssl failed: ${made.stderr}`);
  return {
    key: readFileSync(keyFile, "utf8"),
    cert: readFileSync(certFile, "utf8"),
    trustEnv: { NODE_EXTRA_CA_CERTS: certFile, DENO_CERT: certFile },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
