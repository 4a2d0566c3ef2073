/**
 * Cloud placement names reach URLs (Bedrock's host, Vertex's host and path,
 * Azure's host): seeded random strings built from the characters that could
 * steer a URL (dots, slashes, `@`, `?`, `#`, `%`, `:`, spaces, non-ASCII)
 * never pass the checks of settings.json or of the environment, and every
 * name that passes yields a URL whose host and path are exactly the ones
 * built from it. A failing seed prints itself: rerun with CLOUD_NAMES_SEED=<n>.
 */
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { AWS_REGION, AZURE_RESOURCE, checkedName, GCP_LOCATION, GCP_PROJECT } from "../../src/config/cloud-names.ts";
import { SettingsSchema } from "../../src/config/settings-schema.ts";
import { Prng } from "./transport-prng.ts";

const FIRST_SEED = Number(process.env.CLOUD_NAMES_SEED ?? 1);
const SEEDS = process.env.CLOUD_NAMES_SEED ? 1 : 40;
const PLAIN = "abcdefghijklmnopqrstuvwxyz0123456789-";
const STEERING = "./@?#%:\\ \t\n\u0000é*[]{}";

/** A name that looks like a cloud's own, with some of the time a steering character or two mixed in. */
function candidate(rng: Prng): { text: string; steered: boolean } {
  const base = ["us-east-1", "eu-central-2", "us-gov-west-1", "my-project-123", "us-central1", "global", "team-openai"][rng.int(7)]!;
  let text = base;
  const steered = rng.int(3) > 0;
  if (steered) {
    for (let i = 0, n = 1 + rng.int(3); i < n; i++) {
      const at = rng.int(text.length + 1);
      const extra = STEERING[rng.int(STEERING.length)]! + (rng.int(2) ? "evil.example" : PLAIN[rng.int(PLAIN.length)]!);
      text = text.slice(0, at) + extra + text.slice(at);
    }
  }
  return { text, steered };
}

const CHECKS: Array<[RegExp, string, (name: string) => string]> = [
  [AWS_REGION, "AWS region", (name) => `https://bedrock-runtime.${name}.amazonaws.com/model/m/converse-stream`],
  [GCP_LOCATION, "Vertex location", (name) => `https://${name}-aiplatform.googleapis.com/v1/projects/p/locations/${name}`],
  [GCP_PROJECT, "Google Cloud project", (name) => `https://aiplatform.googleapis.com/v1/projects/${name}/locations/global`],
  [AZURE_RESOURCE, "Azure resource name", (name) => `https://${name}.openai.azure.com/openai/deployments/d/chat/completions`],
];

describe("cloud names", () => {
  for (let seed = FIRST_SEED; seed < FIRST_SEED + SEEDS; seed++) {
    test(`seed ${seed}`, () => {
      const rng = new Prng(seed);
      for (let round = 0; round < 50; round++) {
        const { text, steered } = candidate(rng);
        const where = `seed ${seed}, ${JSON.stringify(text)}`;
        for (const [pattern, what, url] of CHECKS) {
          let accepted = true;
          try {
            checkedName(text, pattern, what, "TEST_VARIABLE");
          } catch (error) {
            accepted = false;
            // The refusal names the variable and never repeats the value.
            expect({ where, message: (error as Error).message.includes(text) }).toEqual({ where, message: false });
          }
          if (steered && /[^a-z0-9-]/i.test(text)) expect({ where, what, accepted }).toEqual({ where, what, accepted: false });
          if (accepted) {
            const built = url(text);
            const parsed = new URL(built);
            expect({ where, href: parsed.href }).toEqual({ where, href: built });
          }
        }
        // settings.json refuses anything but letters, digits and hyphens in every placement field.
        const settings = { providers: { c: { api: "bedrock", region: text, project: text, location: text, resourceName: text } } };
        const parsed = v.safeParse(SettingsSchema, settings).success;
        if (/[^A-Za-z0-9-]/.test(text) || text.startsWith("-")) expect({ where, parsed }).toEqual({ where, parsed: false });
      }
    });
  }
});
