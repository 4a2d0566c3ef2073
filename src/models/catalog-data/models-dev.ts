/**
 * models.dev's data (its api.json shape) read into catalogue rows. Both the
 * script that writes the shipped snapshot and the run-time refresh go
 * through here, so a body that is not models.dev's is refused the same way:
 * every field is checked, and one bad provider refuses the whole body.
 * @module
 */
import { CATALOG_PLAN } from "./catalog-plan.ts";
import { FLAG, type CatalogRow } from "./row.ts";

/** The most models one provider keeps: a bound on what a body can make the agent hold. */
export const MAX_MODELS_PER_PROVIDER = 600;
const MAX_ID_LENGTH = 200;
const MAX_TOKENS = 100_000_000;
const MAX_PRICE = 100_000;

export class CatalogDataError extends Error {
  override name = "CatalogDataError";
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const isText = (value: unknown, max: number): value is string =>
  typeof value === "string" && value.length > 0 && value.length <= max && !/[\u0000-\u001f\u007f]/.test(value);
const tokens = (value: unknown): number | undefined => (Number.isSafeInteger(value) && (value as number) > 0 && (value as number) <= MAX_TOKENS ? (value as number) : undefined);
const price = (value: unknown): number | null | "bad" => {
  if (value === undefined) return null;
  return typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= MAX_PRICE ? value : "bad";
};

/**
 * One model as a row, or undefined when the agent cannot drive it (no tool
 * calls, no text out, withdrawn, no context window). Throws on a field of the
 * wrong shape: that is a broken body, not a model to skip.
 */
export function modelRow(id: string, model: unknown): CatalogRow | undefined {
  if (!isText(id, MAX_ID_LENGTH)) throw new CatalogDataError(`a model id is not a short line of text`);
  if (!isObject(model)) throw new CatalogDataError(`model ${id} is not an object`);
  if (model.tool_call !== true || model.status === "deprecated") return undefined;
  const modalities = isObject(model.modalities) ? model.modalities : {};
  const inputs = Array.isArray(modalities.input) ? modalities.input : [];
  const outputs = Array.isArray(modalities.output) ? modalities.output : ["text"];
  if (!outputs.includes("text")) return undefined;
  const limit = isObject(model.limit) ? model.limit : {};
  const context = tokens(limit.context);
  if (context === undefined) return undefined;
  const output = tokens(limit.output) ?? Math.min(context, 16_384);
  const name = isText(model.name, MAX_ID_LENGTH) ? model.name : id;
  const cost = isObject(model.cost) ? model.cost : {};
  const prices = [price(cost.input), price(cost.output), price(cost.cache_read), price(cost.cache_write)];
  if (prices.includes("bad")) throw new CatalogDataError(`model ${id} has a price that is not a number of dollars`);
  const [input, out, cacheRead, cacheWrite] = prices as Array<number | null>;
  const flags = (model.reasoning === true ? FLAG.reasoning : 0) | (inputs.includes("image") ? FLAG.image : 0) | (inputs.includes("pdf") ? FLAG.pdf : 0);
  return [id, name, context, Math.min(output, context), flags, input!, out!, cacheRead!, cacheWrite!];
}

/**
 * Rows per acp-edge provider name from a whole api.json body. Throws
 * `CatalogDataError` when anything in it is not models.dev's shape, or when a
 * planned provider is missing.
 */
export function catalogFromApi(body: unknown): Map<string, CatalogRow[]> {
  if (!isObject(body)) throw new CatalogDataError("the catalogue is not a JSON object");
  const out = new Map<string, CatalogRow[]>();
  for (const plan of CATALOG_PLAN) {
    const rows: CatalogRow[] = [];
    const seen = new Set<string>();
    for (const source of plan.sources) {
      const provider = body[source];
      if (!isObject(provider) || !isObject(provider.models)) throw new CatalogDataError(`the catalogue has no provider "${source}"`);
      const models = Object.entries(provider.models);
      if (models.length > MAX_MODELS_PER_PROVIDER) throw new CatalogDataError(`provider "${source}" lists more than ${MAX_MODELS_PER_PROVIDER} models`);
      for (const [id, model] of models) {
        const row = modelRow(id, model);
        if (row && !seen.has(row[0])) {
          seen.add(row[0]);
          rows.push(row);
        }
      }
    }
    rows.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    out.set(plan.name, rows);
  }
  return out;
}

/** A planned provider's key variable and endpoint, from models.dev's provider entry (presets only). */
export function presetEndpoint(body: Json, name: string): { keyEnv: string; baseUrl: string } | undefined {
  const plan = CATALOG_PLAN.find((p) => p.name === name);
  if (!plan?.preset) return undefined;
  const provider = body[plan.sources[0]!];
  if (!isObject(provider)) return undefined;
  const env = Array.isArray(provider.env) ? provider.env.find((e) => typeof e === "string" && /^[A-Z_][A-Z0-9_]*$/.test(e)) : undefined;
  const api = typeof provider.api === "string" ? provider.api : plan.preset.baseUrl;
  if (typeof env !== "string" || !api || !/^https?:\/\//.test(api)) return undefined;
  return { keyEnv: env, baseUrl: api.replace(/\/+$/, "") };
}

const isPrice = (value: unknown) => value === null || (typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= MAX_PRICE);

/** One packed row, checked field by field (a cache file is read back through this, not trusted). */
function checkedRow(value: unknown): CatalogRow {
  if (!Array.isArray(value) || value.length !== 9) throw new CatalogDataError("a cached model is not a row of nine fields");
  const [id, name, context, output, flags, ...prices] = value as unknown[];
  if (!isText(id, MAX_ID_LENGTH) || !isText(name, MAX_ID_LENGTH)) throw new CatalogDataError("a cached model has a bad id or name");
  if (tokens(context) === undefined || tokens(output) === undefined) throw new CatalogDataError(`cached model ${id} has a bad limit`);
  if (!Number.isInteger(flags) || (flags as number) < 0 || (flags as number) > 7) throw new CatalogDataError(`cached model ${id} has bad flags`);
  if (!prices.every(isPrice)) throw new CatalogDataError(`cached model ${id} has a bad price`);
  return value as CatalogRow;
}

/** Rows per provider as a cache file holds them (`{provider: rows}`), checked whole: one bad row refuses all. */
export function checkedRows(value: unknown): Map<string, CatalogRow[]> {
  if (!isObject(value)) throw new CatalogDataError("the cached catalogue is not an object");
  const out = new Map<string, CatalogRow[]>();
  for (const plan of CATALOG_PLAN) {
    const rows = value[plan.name];
    if (!Array.isArray(rows)) throw new CatalogDataError(`the cached catalogue has no provider ${plan.name}`);
    if (rows.length > MAX_MODELS_PER_PROVIDER * plan.sources.length) throw new CatalogDataError(`the cached catalogue lists too many ${plan.name} models`);
    out.set(plan.name, rows.map(checkedRow));
  }
  return out;
}
