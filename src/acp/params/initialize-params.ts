/**
 * `initialize` params, parsed without the SDK's schemas so that answering
 * it does not need them built (see lazy-schemas.ts). Only `protocolVersion`
 * can make the request fail, as with the SDK's own schema: a capability of
 * the wrong shape is read as absent (the client then gets nothing that
 * depends on it), never as granted.
 * @module
 */
import { invalidParams } from "../errors.ts";
import type { ClientCapabilities, Implementation, InitializeRequest } from "../sdk.ts";

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const flag = (value: unknown): boolean => value === true;
const optionalObject = (value: unknown): Record<string, unknown> | undefined => (isObject(value) ? value : undefined);

/**
 * The named fields of `raw` that are objects, each dropped otherwise, as the
 * SDK's schema does: every nested capability is an object whose presence
 * grants something, so a lookalike (`"yes"`, `1`, `[]`) must not pass.
 */
function objects(raw: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const value = optionalObject(raw[key]);
    if (value) out[key] = value;
  }
  return out;
}

function capabilities(raw: unknown): ClientCapabilities {
  const given = isObject(raw) ? raw : {};
  const fs = isObject(given.fs) ? given.fs : {};
  const auth = isObject(given.auth) ? given.auth : {};
  const out: ClientCapabilities = {
    fs: { readTextFile: flag(fs.readTextFile), writeTextFile: flag(fs.writeTextFile) },
    terminal: flag(given.terminal),
    auth: { terminal: flag(auth.terminal) },
  };
  const session = optionalObject(given.session);
  if (session) {
    const configOptions = optionalObject(session.configOptions);
    out.session = {
      ...objects(session, ["compaction", "notices", "_meta"]),
      ...(configOptions ? { configOptions: objects(configOptions, ["boolean", "_meta"]) } : {}),
    } as ClientCapabilities["session"];
  }
  const elicitation = optionalObject(given.elicitation);
  if (elicitation) {
    const shaped: Record<string, unknown> = objects(elicitation, ["_meta"]);
    for (const kind of ["form", "url"] as const) {
      const value = optionalObject(elicitation[kind]);
      if (value) shaped[kind] = objects(value, ["_meta"]);
    }
    out.elicitation = shaped as ClientCapabilities["elicitation"];
  }
  const meta = optionalObject(given._meta);
  if (meta) out._meta = meta;
  return out;
}

function clientInfo(raw: unknown): Implementation | undefined {
  if (!isObject(raw) || typeof raw.name !== "string" || typeof raw.version !== "string") return undefined;
  return { name: raw.name, version: raw.version, ...(typeof raw.title === "string" ? { title: raw.title } : {}) };
}

/** The params of `initialize`, or an invalid-params error naming what is wrong. */
export function parseInitializeParams(raw: unknown): InitializeRequest {
  if (!isObject(raw)) throw invalidParams("params: expected an object");
  const version = raw.protocolVersion;
  if (typeof version !== "number" || !Number.isInteger(version) || version < 0 || version > 65_535) {
    throw invalidParams("protocolVersion: expected an integer from 0 to 65535");
  }
  const info = clientInfo(raw.clientInfo);
  const meta = optionalObject(raw._meta);
  return { protocolVersion: version, clientCapabilities: capabilities(raw.clientCapabilities), ...(info ? { clientInfo: info } : {}), ...(meta ? { _meta: meta } : {}) };
}
