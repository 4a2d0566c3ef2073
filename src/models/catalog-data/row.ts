/**
 * One model of the shipped catalogue, packed small: the generated provider
 * modules beside this file hold hundreds of these, and only the fields the
 * agent uses (see scripts/catalog-update.ts).
 * @module
 */
import type { ModelInfo } from "../types.ts";

/** `[id, name, contextWindow, maxOutputTokens, flags, input, output, cacheRead, cacheWrite]`; prices in USD per million tokens, null when unknown. */
export type CatalogRow = [string, string, number, number, number, number | null, number | null, number | null, number | null];

/** Bits of a row's `flags`. */
export const FLAG = { reasoning: 1, image: 2, pdf: 4 } as const;

/** USD per search a provider runs itself (models.dev has no such price): Anthropic and OpenAI both bill $10 per 1,000 searches, on top of tokens. */
const PROVIDER_SEARCH_PRICE: Readonly<Record<string, number>> = { anthropic: 0.01, openai: 0.01 };

/** The facts of one row as the model layer's `ModelInfo`. */
export function rowInfo(provider: string, row: CatalogRow): ModelInfo {
  const [id, name, contextWindow, maxOutputTokens, flags, input, output, cacheRead, cacheWrite] = row;
  const webSearch = PROVIDER_SEARCH_PRICE[provider];
  return {
    provider,
    id,
    name,
    contextWindow,
    maxOutputTokens,
    reasoning: (flags & FLAG.reasoning) !== 0,
    // PDF input is not sent as a document yet; images are.
    input: flags & FLAG.image ? ["text", "image"] : ["text"],
    ...(input !== null && output !== null
      ? {
          price: {
            input,
            output,
            ...(cacheRead !== null ? { cacheRead } : {}),
            ...(cacheWrite !== null ? { cacheWrite } : {}),
            ...(webSearch !== undefined ? { webSearch } : {}),
          },
        }
      : {}),
  };
}
