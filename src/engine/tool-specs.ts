/**
 * Tool definitions as the model sees them: name, description and the JSON
 * Schema derived from each tool's valibot schema.
 * @module
 */
import { toJsonSchema } from "@valibot/to-json-schema";
import type { ToolSpec } from "../models/types.ts";
import type { ToolDefinition } from "../tools/types.ts";

const cache = new WeakMap<ToolDefinition, ToolSpec>();

export function toolSpec(tool: ToolDefinition): ToolSpec {
  let spec = cache.get(tool);
  if (!spec) {
    const { $schema: _ignored, ...inputSchema } = (tool.jsonSchema ?? toJsonSchema(tool.schema, { errorMode: "ignore" })) as Record<string, unknown>;
    spec = { name: tool.name, description: tool.description, inputSchema };
    cache.set(tool, spec);
  }
  return spec;
}
