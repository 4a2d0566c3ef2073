// The environment every bench gives the processes it measures, the floors and the agent alike:
// only what a runtime needs to start (PATH, HOME, TMPDIR) plus what the bench sets itself. Nothing
// else from the caller's shell reaches them: NODE_EXTRA_CA_CERTS alone adds tens of milliseconds to
// every Node start, and NODE_OPTIONS, proxy settings or provider keys would change what is measured.

const KEPT = ["PATH", "HOME", "TMPDIR"];

/** A minimal environment: the kept variables of this process, then `extra` (undefined values are left out). */
export function benchEnv(extra = {}) {
  const env = {};
  for (const name of KEPT) if (process.env[name]) env[name] = process.env[name];
  for (const [name, value] of Object.entries(extra)) if (value !== undefined) env[name] = value;
  return env;
}
