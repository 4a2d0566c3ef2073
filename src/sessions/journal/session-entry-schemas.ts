/**
 * The shapes of the journal entries acp-edge writes (see session-entries.ts),
 * as valibot schemas. The recorder checks every entry against them before it
 * is written, and the reader checks every entry read back, so a line that was
 * damaged or written by something else is caught at the boundary instead of
 * failing deep inside a restore. Each schema is typed against the entry type
 * it checks, so the two cannot drift apart. Objects are loose: fields a newer
 * release adds are kept.
 * @module
 */
import * as v from "valibot";
import { APPROVAL_MODES } from "../../config/settings-schema.ts";
import { THINKING_LEVELS, type ModelMessage, type ProviderData } from "../../models/types.ts";
import type { FileDiff, PlanEntry, ToolKind, ToolLocation, ToolOutputPart } from "../../tools/types.ts";
import type { Grant } from "../../permissions/grants.ts";
import type { SessionEntry } from "./session-entries.ts";

/** Entries nested deeper than this are refused, whatever their type: serialising them again could overflow the stack. */
export const MAX_ENTRY_DEPTH = 128;

type EntryOf<T extends SessionEntry["type"]> = Extract<SessionEntry, { type: T }>;

/** Any JSON value (free-form tool input; the depth of the whole entry is checked once, in entryProblem). */
const JsonValue = v.unknown();

const ProviderDataSchema: v.GenericSchema<ProviderData> = v.record(v.string(), v.record(v.string(), JsonValue));

const TextPart = v.looseObject({ type: v.literal("text"), text: v.string() });
const ImagePart = v.looseObject({ type: v.literal("image"), data: v.string(), mimeType: v.string() });
const ThinkingPart = v.looseObject({ type: v.literal("thinking"), text: v.string(), providerData: v.optional(ProviderDataSchema) });
const ToolCallPart = v.looseObject({
  type: v.literal("tool_call"),
  id: v.string(),
  name: v.string(),
  input: JsonValue,
  providerData: v.optional(ProviderDataSchema),
});

const ServerToolPart = v.looseObject({
  type: v.literal("server_tool"),
  id: v.string(),
  name: v.string(),
  input: JsonValue,
  output: v.optional(JsonValue),
  isError: v.optional(v.boolean()),
  providerData: v.optional(ProviderDataSchema),
});
const CitationSchema = v.looseObject({ url: v.string(), title: v.optional(v.string()) });

/** A message of the conversation, as the model layer defines it. */
export const ModelMessageSchema: v.GenericSchema<ModelMessage> = v.variant("role", [
  v.looseObject({ role: v.literal("user"), content: v.array(v.variant("type", [TextPart, ImagePart])) }),
  v.looseObject({
    role: v.literal("assistant"),
    content: v.array(v.variant("type", [TextPart, ThinkingPart, ToolCallPart, ServerToolPart])),
    citations: v.optional(v.array(CitationSchema)),
    model: v.optional(v.string()),
  }),
  v.looseObject({
    role: v.literal("tool"),
    toolCallId: v.string(),
    toolName: v.string(),
    content: v.array(v.variant("type", [TextPart, ImagePart])),
    isError: v.boolean(),
  }),
]);

const TOOL_KINDS = ["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "other"] as const satisfies readonly ToolKind[];
/** Token counts and sizes: what ACP's `usage_update` accepts (integers, not negative). */
const Count = v.pipe(v.number(), v.integer(), v.minValue(0));
const ToolLocationSchema: v.GenericSchema<ToolLocation> = v.looseObject({
  path: v.string(),
  line: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(4294967295))),
});
const ToolOutputPartSchema: v.GenericSchema<ToolOutputPart> = v.variant("type", [TextPart, ImagePart]);
const FileDiffSchema: v.GenericSchema<FileDiff> = v.looseObject({ path: v.string(), oldText: v.nullable(v.string()), newText: v.string() });
const PlanEntrySchema: v.GenericSchema<PlanEntry> = v.looseObject({
  content: v.string(),
  status: v.picklist(["pending", "in_progress", "completed"]),
  priority: v.picklist(["high", "medium", "low"]),
});
const GRANT_CLASSES = ["read", "edit", "execute", "fetch", "other"] as const;
const GrantSchema: v.GenericSchema<Grant> = v.looseObject({
  effect: v.picklist(["allow", "deny"]),
  class: v.picklist(GRANT_CLASSES),
  scope: v.variant("kind", [
    v.looseObject({ kind: v.literal("roots") }),
    v.looseObject({ kind: v.literal("path"), prefix: v.string() }),
    v.looseObject({ kind: v.literal("command"), prefixes: v.array(v.string()) }),
    v.looseObject({ kind: v.literal("tool"), name: v.string() }),
    v.looseObject({ kind: v.literal("host"), host: v.string() }),
  ]),
  label: v.string(),
});

/**
 * `config` values are checked one by one (see configValues): an entry whose
 * mode nobody advertises must not cost the model it also recorded.
 */
const ConfigEntry = v.looseObject({ type: v.literal("config"), mode: v.optional(v.unknown()), model: v.optional(v.unknown()), thinking: v.optional(v.unknown()) });

/** One schema per entry type acp-edge writes. */
export const ENTRY_SCHEMAS = {
  message: v.looseObject({ type: v.literal("message"), messageId: v.string(), message: ModelMessageSchema }),
  tool_call: v.looseObject({
    type: v.literal("tool_call"),
    toolCallId: v.string(),
    toolName: v.string(),
    title: v.string(),
    kind: v.picklist(TOOL_KINDS),
    locations: v.array(ToolLocationSchema),
    input: JsonValue,
    parentToolCallId: v.optional(v.string()),
  }),
  tool_result: v.looseObject({
    type: v.literal("tool_result"),
    toolCallId: v.string(),
    status: v.picklist(["completed", "failed"]),
    content: v.optional(v.array(ToolOutputPartSchema)),
    locations: v.optional(v.array(ToolLocationSchema)),
    diff: v.optional(FileDiffSchema),
    details: v.optional(v.record(v.string(), JsonValue)),
    exit: v.optional(v.looseObject({ exitCode: v.nullable(v.number()), signal: v.nullable(v.string()) })),
  }),
  config: ConfigEntry,
  // A title of null clears it (docs/storage.md).
  title: v.looseObject({ type: v.literal("title"), title: v.nullable(v.string()) }),
  grant: v.looseObject({ type: v.literal("grant"), grant: GrantSchema }),
  plan: v.looseObject({ type: v.literal("plan"), entries: v.array(PlanEntrySchema) }),
  compaction: v.looseObject({
    type: v.literal("compaction"),
    summary: v.string(),
    keptFrom: v.pipe(v.number(), v.integer(), v.minValue(0)),
    tokensBefore: Count,
  }),
  rewound: v.looseObject({ type: v.literal("rewound"), messageId: v.string(), from: v.pipe(v.number(), v.integer(), v.minValue(0)) }),
  command_files: v.looseObject({
    type: v.literal("command_files"),
    toolCallId: v.string(),
    files: v.array(v.looseObject({ path: v.string(), before: v.nullable(v.string()), after: v.nullable(v.string()) })),
    unkept: v.optional(v.array(v.looseObject({ path: v.string(), reason: v.string() }))),
  }),
  files_rewound: v.looseObject({ type: v.literal("files_rewound"), messageId: v.string(), from: v.pipe(v.number(), v.integer(), v.minValue(0)) }),
  retracted: v.looseObject({ type: v.literal("retracted"), messages: v.pipe(v.number(), v.integer(), v.minValue(1)) }),
  usage: v.looseObject({
    type: v.literal("usage"),
    used: Count,
    size: Count,
    cost: v.optional(v.pipe(v.number(), v.minValue(0))),
    input: Count,
    output: Count,
    cacheRead: Count,
    cacheWrite: Count,
  }),
} satisfies { [T in SessionEntry["type"]]: v.GenericSchema<unknown, unknown> };

// Compile-time proof that what a schema accepts is the entry type it stands for.
type Out<T extends keyof typeof ENTRY_SCHEMAS> = v.InferOutput<(typeof ENTRY_SCHEMAS)[T]>;
type Assignable<A extends B, B> = A;
/** Not used at run time: fails to compile when a schema and its entry type drift apart. */
export type SchemasMatchEntries = [
  Assignable<Out<"message">, EntryOf<"message">>,
  Assignable<Out<"tool_call">, EntryOf<"tool_call">>,
  Assignable<Out<"tool_result">, EntryOf<"tool_result">>,
  Assignable<Out<"grant">, EntryOf<"grant">>,
  Assignable<Out<"plan">, EntryOf<"plan">>,
  Assignable<Out<"compaction">, EntryOf<"compaction">>,
  Assignable<Out<"usage">, EntryOf<"usage">>,
  Assignable<Out<"retracted">, EntryOf<"retracted">>,
  Assignable<Out<"rewound">, EntryOf<"rewound">>,
  Assignable<Out<"files_rewound">, EntryOf<"files_rewound">>,
  Assignable<Out<"command_files">, EntryOf<"command_files">>,
  Assignable<Out<"title">, EntryOf<"title">>,
  Assignable<EntryOf<"config">, Out<"config">>,
];

/** Whether `type` is one acp-edge writes (entries of other types are kept unchecked). */
export function isKnownEntryType(type: string): type is keyof typeof ENTRY_SCHEMAS {
  return Object.hasOwn(ENTRY_SCHEMAS, type);
}

/**
 * Why `entry` cannot be used: nested too deep (any type), or not the shape
 * of its type (our types; others are kept unchecked). Undefined when fine.
 */
export function entryProblem(entry: { type: string }): string | undefined {
  if (!withinDepth(entry, MAX_ENTRY_DEPTH)) return `nested deeper than ${MAX_ENTRY_DEPTH} levels`;
  if (!isKnownEntryType(entry.type)) return undefined;
  const result = v.safeParse(ENTRY_SCHEMAS[entry.type] as v.GenericSchema<unknown, unknown>, entry);
  if (result.success) return undefined;
  const issue = result.issues[0];
  const where = v.getDotPath(issue);
  return `${where ? `${where}: ` : ""}${issue.message}`;
}

/** The valid settings of a `config` entry, and a notice for each value nobody advertises. */
export function configValues(entry: Readonly<Record<string, unknown>>): {
  values: Omit<EntryOf<"config">, "type">;
  notices: string[];
} {
  const values: Omit<EntryOf<"config">, "type"> = {};
  const notices: string[] = [];
  const ignored = (field: string, value: unknown, allowed: string) =>
    notices.push(`a stored ${field} of ${JSON.stringify(value)?.slice(0, 80)} is not one of ${allowed}; it was ignored`);
  if (entry.mode !== undefined) {
    if ((APPROVAL_MODES as readonly unknown[]).includes(entry.mode)) values.mode = entry.mode as (typeof APPROVAL_MODES)[number];
    else ignored("mode", entry.mode, APPROVAL_MODES.join(", "));
  }
  if (entry.thinking !== undefined) {
    if ((THINKING_LEVELS as readonly unknown[]).includes(entry.thinking)) values.thinking = entry.thinking as (typeof THINKING_LEVELS)[number];
    else ignored("thought level", entry.thinking, THINKING_LEVELS.join(", "));
  }
  if (entry.model !== undefined) {
    if (typeof entry.model === "string" && entry.model !== "") values.model = entry.model;
    else ignored("model", entry.model, "a provider/model name");
  }
  return { values, notices };
}

/** Whether `value` nests no deeper than `max` arrays/objects (checked without recursion). */
function withinDepth(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current !== "object" || current === null) continue;
    if (depth >= max) return false;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
    }
  }
  return true;
}
