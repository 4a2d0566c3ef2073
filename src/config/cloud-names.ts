/**
 * What a cloud placement name may look like. Project, location, region and
 * resource names end up in a request URL's host or path, so anything that is
 * not the cloud's own spelling is refused before it can reach a URL: a region
 * such as `us-east-1.evil.example/x?` would otherwise choose the host.
 * @module
 */

/** AWS regions: `us-east-1`, `eu-central-2`, `us-gov-west-1`, `ap-southeast-7`. */
export const AWS_REGION = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;
/** Google Cloud project ids: 6–30 lowercase letters, digits and hyphens, starting with a letter. */
export const GCP_PROJECT = /^[a-z][a-z0-9-]{4,28}[a-z0-9]$/;
/** Vertex locations: `us-central1`, `europe-west4`, `global`, `us`, `eu`. */
export const GCP_LOCATION = /^[a-z]+(-[a-z]+\d*)*$/;
/** Azure resource names: letters, digits and hyphens. */
export const AZURE_RESOURCE = /^[A-Za-z0-9][A-Za-z0-9-]{0,62}$/;

/** `value` when it matches `pattern`; otherwise an error naming where it came from (the value itself may be hostile: it is not echoed). */
export function checkedName(value: string, pattern: RegExp, what: string, from: string): string {
  if (!pattern.test(value)) throw new CloudNameError(`${from}: ${what} is not valid (expected a name such as ${EXAMPLES[what] ?? "a plain name"})`);
  return value;
}

const EXAMPLES: Record<string, string> = {
  "AWS region": "us-east-1",
  "Google Cloud project": "my-project-123",
  "Vertex location": "us-central1 or global",
  "Azure resource name": "my-openai-resource",
};

export class CloudNameError extends Error {
  override name = "CloudNameError";
}
