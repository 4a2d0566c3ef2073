/**
 * One MCP tool as a `ToolDefinition`: the server's JSON Schema shown to the
 * model and checked with ajv, annotations mapped to a kind and an access
 * class, results mapped to tool output.
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import * as v from "valibot";
import { log } from "../../runtime/log.ts";
import type { ToolDefinition } from "../types.ts";
import { mcpToolResult } from "./result.ts";

/** Checks input against a JSON Schema: an error message, or undefined when it is valid. */
export type InputCheck = (input: unknown) => string | undefined;

/** Where an MCP tool comes from and how to call it. */
export interface McpToolSource {
  /** The server's name as configured. */
  server: string;
  tool: Tool;
  /** Builds a validator for a JSON Schema; may throw for schemas it cannot compile. */
  compile(schema: Record<string, unknown>): InputCheck;
  /** Calls the tool; failures throw a `ToolError` naming the server. */
  call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult>;
}

/** The schema a tool gets when its server declares none usable. */
export const EMPTY_OBJECT_SCHEMA: Record<string, unknown> = { type: "object", properties: {} };

const SNIPPET_LENGTH = 120;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The server's input schema when it is an object schema, else an empty object schema. */
export function inputJsonSchema(tool: Tool): Record<string, unknown> {
  const schema = tool.inputSchema as unknown;
  return isPlainObject(schema) && schema.type === "object" ? schema : EMPTY_OBJECT_SCHEMA;
}

/** A valibot schema accepting exactly the objects `jsonSchema` accepts, with ajv's message otherwise. */
export function jsonSchemaInput(jsonSchema: Record<string, unknown>, compile: (schema: Record<string, unknown>) => InputCheck, label: string) {
  let check: InputCheck | undefined;
  const problem = (input: unknown): string | undefined => {
    if (!isPlainObject(input)) return "expected an object of arguments";
    if (!check) {
      try {
        check = compile(jsonSchema);
      } catch (error) {
        // The server validates its input too; a schema ajv cannot compile must not make the tool unusable.
        log.debug(`cannot compile the input schema of ${label}; arguments are not checked`, error);
        check = () => undefined;
      }
    }
    return check(input);
  };
  return v.custom<Record<string, unknown>>(
    (input) => problem(input) === undefined,
    (issue) => problem(issue.input) ?? "invalid arguments",
  );
}

function firstLine(text: string): string {
  const line = text.trim().split("\n")[0]?.trim() ?? "";
  return line.length > SNIPPET_LENGTH ? `${line.slice(0, SNIPPET_LENGTH - 1)}…` : line;
}

/** The tool definition for `source.tool`, under the model-facing `name`. */
export function mcpToolDefinition(name: string, source: McpToolSource): ToolDefinition {
  const { server, tool } = source;
  const readOnly = tool.annotations?.readOnlyHint === true;
  const jsonSchema = inputJsonSchema(tool);
  const about = tool.description?.trim() || tool.title || tool.annotations?.title || tool.name;
  return {
    name,
    description: `[MCP server "${server}", tool "${tool.name}"] ${about}`,
    promptSnippet: `${server}: ${firstLine(about)}`,
    schema: jsonSchemaInput(jsonSchema, source.compile, `MCP tool "${tool.name}" of server "${server}"`),
    jsonSchema,
    kind: readOnly ? "read" : "other",
    ...(readOnly ? { readOnly: true } : {}),
    describe() {
      return { title: `${server}: ${tool.name}`, locations: [] };
    },
    access() {
      return { class: readOnly ? "read" : "other" };
    },
    async execute(input, { signal }) {
      const result = await source.call(tool.name, input as Record<string, unknown>, signal);
      return mcpToolResult(result, server, tool.name);
    },
  };
}
