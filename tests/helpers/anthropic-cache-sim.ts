/**
 * A simulation of Anthropic's prompt cache, for the fake model server and the
 * cost benchmark: a request is the blocks tools → system → messages; a
 * `cache_control` breakpoint writes the prefix up to its block; a later
 * request reads the longest prefix written before that ends at one of its
 * breakpoints or up to 20 blocks before one. Prefixes under 1,024 tokens are
 * not cached. Tokens are estimated as characters / 4 of each block's JSON,
 * `cache_control` left out (moving a breakpoint changes no content).
 * Only `node:*` modules, so Bun, Node and Deno can all import it.
 * @module
 */
import { createHash } from "node:crypto";

/** Input tokens of one request as Anthropic would bill them. */
export interface SimulatedUsage {
  /** Not cached: billed at the input price. */
  input: number;
  /** Read from the cache: billed at 0.1×. */
  cacheRead: number;
  /** Written to the cache: billed at 1.25× (5 minutes) or 2× (1 hour). */
  cacheWrite: number;
  /** Breakpoints the request marked. */
  breakpoints: number;
  /** Whether any breakpoint asked for the 1-hour cache. */
  longTtl: boolean;
}

const LOOKBACK_BLOCKS = 20;
const MIN_CACHED_TOKENS = 1024;

/** One cache, shared by the requests it sees (one API key's cache). */
export class AnthropicCacheSim {
  readonly #written = new Set<string>();

  /** Bills one Messages request body and remembers what it wrote. */
  bill(body: unknown): SimulatedUsage {
    const blocks = requestBlocks(body);
    const hashes: string[] = [];
    const ends: number[] = [];
    let hash = "";
    let tokens = 0;
    for (const block of blocks) {
      hash = createHash("sha256").update(hash).update(block.text).digest("hex");
      tokens += Math.ceil(block.text.length / 4);
      hashes.push(hash);
      ends.push(tokens);
    }
    const total = tokens;
    const breakpoints = blocks.flatMap((block, i) => (block.breakpoint ? [i] : []));
    let readEnd = -1;
    for (const point of breakpoints) {
      for (let i = point; i >= Math.max(0, point - LOOKBACK_BLOCKS); i -= 1) {
        if (this.#written.has(hashes[i]!)) {
          readEnd = Math.max(readEnd, i);
          break;
        }
      }
    }
    const cacheRead = readEnd >= 0 ? ends[readEnd]! : 0;
    let writeEnd = readEnd;
    for (const point of breakpoints) {
      if (ends[point]! < MIN_CACHED_TOKENS) continue;
      this.#written.add(hashes[point]!);
      writeEnd = Math.max(writeEnd, point);
    }
    const cacheWrite = writeEnd > readEnd ? ends[writeEnd]! - cacheRead : 0;
    return {
      input: total - cacheRead - cacheWrite,
      cacheRead,
      cacheWrite,
      breakpoints: breakpoints.length,
      longTtl: blocks.some((block) => block.longTtl),
    };
  }
}

/** Billed input in tokens-at-input-price: reads 0.1×, writes 1.25× (2× for the 1-hour cache), the rest 1×. */
export function billedInput(usage: SimulatedUsage): number {
  return usage.input + usage.cacheRead * 0.1 + usage.cacheWrite * (usage.longTtl ? 2 : 1.25);
}

interface Block {
  text: string;
  breakpoint: boolean;
  longTtl: boolean;
}

/** The request's blocks in cache order, each as stable JSON without its `cache_control`. */
export function requestBlocks(body: unknown): Block[] {
  const request = (body ?? {}) as { tools?: unknown[]; system?: unknown; messages?: Array<{ role?: string; content?: unknown }> };
  const out: Block[] = [];
  const add = (value: unknown, prefix = "") => {
    const { cache_control: control, ...rest } = (typeof value === "object" && value !== null ? value : { text: value }) as Record<string, unknown>;
    out.push({
      text: prefix + JSON.stringify(rest),
      breakpoint: control !== undefined && control !== null,
      longTtl: (control as { ttl?: string } | undefined)?.ttl === "1h",
    });
  };
  for (const tool of request.tools ?? []) add(tool, "tool:");
  if (typeof request.system === "string") add({ type: "text", text: request.system }, "system:");
  else for (const block of (request.system as unknown[] | undefined) ?? []) add(block, "system:");
  for (const message of request.messages ?? []) {
    const content = typeof message.content === "string" ? [{ type: "text", text: message.content }] : ((message.content as unknown[] | undefined) ?? []);
    content.forEach((block, i) => add(block, i === 0 ? `${message.role}:` : ""));
  }
  return out;
}
