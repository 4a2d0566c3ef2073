/**
 * The credential files the clouds' variables name are hidden from confined
 * commands, and the variables are input the agent does not control: seeded
 * random assignments of hostile values (`/`, the home directory, a session
 * folder, symlinks to them, relative paths, `..`, missing paths, odd bytes)
 * never make a folder the home directory or a session folder lies in a path
 * to cover, while every real credential file or folder named is covered.
 * A failing seed prints itself: rerun with CLOUD_PATHS_SEED=<n>.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { CLOUD_CREDENTIAL_PATH_VARIABLES, cloudCredentialPaths } from "../../src/config/cloud-credential-files.ts";
import { Prng } from "./transport-prng.ts";

const FIRST_SEED = Number(process.env.CLOUD_PATHS_SEED ?? 1);
const SEEDS = process.env.CLOUD_PATHS_SEED ? 1 : 60;

const root = realpathSync(mkdtempSync(join(tmpdir(), "acp-edge-cloud-paths-")));
const home = join(root, "home");
const project = join(home, "project");
const key = join(root, "keys", "service-account.json");
const cli = join(root, "gcloud-config");
mkdirSync(project, { recursive: true });
mkdirSync(join(root, "keys"));
mkdirSync(cli);
writeFileSync(key, "{}");
writeFileSync(join(cli, "application_default_credentials.json"), "{}");
symlinkSync(home, join(root, "link-to-home"));
symlinkSync(key, join(root, "link-to-key"));
symlinkSync(project, join(root, "link-to-project"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Values a variable may hold, with where each really leads (undefined: nowhere that exists). */
const VALUES: Array<{ value: string; leads?: string }> = [
  { value: "/", leads: "/" },
  { value: "" },
  { value: root, leads: root },
  { value: home, leads: home },
  { value: `${project}/`, leads: project },
  { value: join(project, ".."), leads: home },
  { value: join(root, "link-to-home"), leads: home },
  { value: join(root, "link-to-project"), leads: project },
  { value: key, leads: key },
  { value: join(root, "link-to-key"), leads: key },
  { value: relative(process.cwd(), key), leads: key },
  { value: cli, leads: cli },
  { value: join(root, "missing", "file.json") },
  { value: `${key}\n/` },
  { value: `${home}\u0000` },
];

const FILE_VARIABLES = new Set(["GOOGLE_APPLICATION_CREDENTIALS", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE", "AWS_WEB_IDENTITY_TOKEN_FILE"]);

describe("the cloud credential paths the environment names", () => {
  test.each(Array.from({ length: SEEDS }, (_, i) => FIRST_SEED + i))("seed %i: nothing that holds the home or a session folder is covered; every named credential is", async (seed) => {
    const rng = new Prng(seed);
    const saved = Object.fromEntries(CLOUD_CREDENTIAL_PATH_VARIABLES.map((name) => [name, process.env[name]]));
    const chosen: Record<string, (typeof VALUES)[number]> = {};
    try {
      for (const name of CLOUD_CREDENTIAL_PATH_VARIABLES) {
        if (rng.int(4) === 0) {
          delete process.env[name];
          continue;
        }
        chosen[name] = VALUES[rng.int(VALUES.length)]!;
        process.env[name] = chosen[name].value;
      }
      const found = await cloudCredentialPaths([home, project]);
      const context = JSON.stringify({ seed, chosen, found });
      for (const path of found) {
        expect({ context, coversAll: path === "/" }).toEqual({ context, coversAll: false });
        for (const visible of [home, project]) expect({ context, path, holds: visible === path || visible.startsWith(`${path}/`) }).toEqual({ context, path, holds: false });
      }
      for (const [name, { leads }] of Object.entries(chosen)) {
        if (leads === undefined) continue;
        const isFile = leads === key;
        if (FILE_VARIABLES.has(name)) {
          // A file variable covers a file it names, and never a folder.
          if (isFile) expect({ context, name, covered: found.includes(key) }).toEqual({ context, name, covered: true });
        } else if (leads === cli) {
          expect({ context, name, covered: found.includes(cli) }).toEqual({ context, name, covered: true });
        } else if (!isFile) {
          // A folder too big to cover: its credential files are covered instead.
          expect({ context, name, covered: found.some((path) => path.startsWith(`${leads === "/" ? "" : leads}/`)) }).toEqual({ context, name, covered: true });
        }
      }
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});
