/**
 * An MCP `tools/call` result as a tool result: text and images pass through,
 * embedded text resources become text with their URI, everything else a
 * short note the model can read.
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { redactSecrets } from "../../runtime/secrets.ts";
import { DEFAULT_MAX_BYTES, formatSize, utf8Length } from "../truncate.ts";
import type { ToolOutputPart, ToolResult } from "../types.ts";

/** Text beyond this (all parts together) is cut: a huge result would only crowd out the conversation. */
export const MAX_RESULT_TEXT_BYTES = 2 * DEFAULT_MAX_BYTES;

type Block = CallToolResult["content"][number];

function blockParts(block: Block): ToolOutputPart[] {
  switch (block.type) {
    case "text":
      return [{ type: "text", text: block.text }];
    case "image":
      return [{ type: "image", data: block.data, mimeType: block.mimeType }];
    case "audio":
      return [{ type: "text", text: `[audio (${block.mimeType}) not shown]` }];
    case "resource": {
      const resource = block.resource;
      if ("text" in resource && typeof resource.text === "string") {
        return [{ type: "text", text: `Resource ${resource.uri}:\n${resource.text}` }];
      }
      const mime = resource.mimeType ? ` (${resource.mimeType})` : "";
      return [{ type: "text", text: `[binary resource ${resource.uri}${mime} not shown]` }];
    }
    case "resource_link": {
      const about = block.description ? ` — ${block.description}` : "";
      return [{ type: "text", text: `Resource link: ${block.name} <${block.uri}>${about}` }];
    }
    default:
      return [{ type: "text", text: `[content of type "${(block as { type: string }).type}" not shown]` }];
  }
}

/** Cuts text parts once their total passes the limit, with a note saying so. */
function capText(parts: ToolOutputPart[]): { parts: ToolOutputPart[]; truncated: boolean } {
  let budget = MAX_RESULT_TEXT_BYTES;
  let truncated = false;
  const out: ToolOutputPart[] = [];
  for (const part of parts) {
    if (part.type !== "text") {
      out.push(part);
      continue;
    }
    if (truncated) continue;
    const size = utf8Length(part.text);
    if (size <= budget) {
      out.push(part);
      budget -= size;
      continue;
    }
    // Hidden before the cut, which could otherwise leave part of a secret that redaction (later, on the whole result) no longer recognises.
    const text = redactSecrets(part.text);
    const head = new TextDecoder().decode(new TextEncoder().encode(text).subarray(0, budget)).replace(/\uFFFD$/, "");
    out.push({ type: "text", text: `${head}\n\n[Output truncated: the result is over ${formatSize(MAX_RESULT_TEXT_BYTES)}.]` });
    truncated = true;
  }
  return { parts: out, truncated };
}

/** Maps a validated `tools/call` result. */
export function mcpToolResult(result: CallToolResult, server: string, tool: string): ToolResult {
  let parts = result.content.flatMap(blockParts);
  if (parts.length === 0 && result.structuredContent !== undefined) {
    parts = [{ type: "text", text: JSON.stringify(result.structuredContent, null, 2) }];
  }
  if (parts.length === 0) parts = [{ type: "text", text: "(no output)" }];
  const capped = capText(parts);
  return {
    content: capped.parts,
    ...(result.isError ? { isError: true } : {}),
    details: { server, tool, ...(capped.truncated ? { truncated: true } : {}) },
  };
}
