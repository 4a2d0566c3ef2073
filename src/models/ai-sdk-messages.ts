/**
 * Converts the project's messages to the provider packages' own prompt form
 * (LanguageModelV3). Provider data (thinking signatures, item ids) only goes
 * back to the provider that wrote it: another provider would reject or misread it.
 * @module
 */
import type { Prompt } from "./ai-sdk-v3.ts";
import type {
  AssistantMessage,
  ImagePart,
  ModelMessage,
  ProviderData,
  ProviderEndpoint,
  ServerToolPart,
  TextPart,
  ToolResultMessage,
  Wire,
} from "./types.ts";

type Message = Prompt[number];
type UserContent = Extract<Message, { role: "user" }>["content"][number];
type AssistantContent = Extract<Message, { role: "assistant" }>["content"];
type ToolMessage = Extract<Message, { role: "tool" }>;
type ToolResultPart = Extract<ToolMessage["content"][number], { type: "tool-result" }>;
type FilePart = Extract<UserContent, { type: "file" }>;
type PartOptions = NonNullable<ToolResultPart["providerOptions"]>;

/** The prompt for `endpoint` in `wire` format: the system prompt first, then the conversation; consecutive tool results become one tool message. */
export function toPrompt(system: string, messages: readonly ModelMessage[], endpoint: ProviderEndpoint, wire: Wire): Prompt {
  const out: Prompt = system ? [{ role: "system", content: system }] : [];
  // Chat-completions tool messages carry text only, so their images follow the tool run as a user message.
  let pendingImages: FilePart[] = [];
  const flushImages = () => {
    if (pendingImages.length === 0) return;
    out.push({ role: "user", content: [{ type: "text", text: "Images returned by the tool calls above:" }, ...pendingImages] });
    pendingImages = [];
  };

  for (const message of messages) {
    if (message.role !== "tool") flushImages();
    switch (message.role) {
      case "user": {
        const content: UserContent[] = [];
        for (const part of message.content) {
          if (part.type === "image") content.push(filePart(part));
          else if (part.text) content.push({ type: "text", text: part.text });
        }
        if (content.length > 0) out.push({ role: "user", content });
        break;
      }
      case "assistant": {
        const content = assistantContent(message, endpoint, wire);
        if (content.length > 0) out.push({ role: "assistant", content });
        break;
      }
      case "tool": {
        const { part, images } = toolResult(message, wire);
        pendingImages.push(...images);
        const last = out[out.length - 1];
        if (last?.role === "tool") last.content.push(part);
        else out.push({ role: "tool", content: [part] });
        break;
      }
    }
  }
  flushImages();
  return out;
}

/** True when `model` (`provider/id`) was written by the provider behind `endpoint`, or is unknown. */
export function isSameProvider(model: string | undefined, endpoint: ProviderEndpoint): boolean {
  if (!model) return true;
  const slash = model.indexOf("/");
  return (slash < 0 ? model : model.slice(0, slash)) === endpoint.provider;
}

function filePart(part: ImagePart): FilePart {
  return { type: "file", data: part.data, mediaType: part.mimeType };
}

function assistantContent(message: AssistantMessage, endpoint: ProviderEndpoint, wire: Wire): AssistantContent {
  const same = isSameProvider(message.model, endpoint);
  const content: AssistantContent = [];
  for (const part of message.content) {
    switch (part.type) {
      case "text":
        if (part.text) content.push({ type: "text", text: part.text });
        break;
      case "thinking":
        // Another provider's reasoning is opaque to this one (and its signature would be rejected).
        if (!same) break;
        content.push({ type: "reasoning", text: part.text, ...options(part.providerData) });
        break;
      case "tool_call":
        content.push({
          type: "tool-call",
          toolCallId: part.id,
          toolName: part.name,
          input: toolInput(part.input, wire),
          ...(same ? options(part.providerData) : {}),
        });
        break;
      case "server_tool":
        // The provider's own search is only meaningful to it (and its results are encrypted for it): another provider gets the answer's text alone.
        if (!same) break;
        content.push(...serverToolParts(part));
        break;
    }
  }
  return content;
}

/**
 * A provider-executed call and its result, as the provider package turns them back into its blocks
 * (Anthropic's `server_tool_use` + `web_search_tool_result`, OpenAI's `web_search_call`): the output travels unchanged.
 * A call without a result (a stream cut short) is not sent: the provider refuses a call with no result.
 */
function serverToolParts(part: ServerToolPart): AssistantContent {
  if (part.output === undefined) return [];
  const output = (part.isError ? { type: "error-json", value: part.output } : { type: "json", value: part.output }) as ToolResultPart["output"];
  return [
    { type: "tool-call", toolCallId: part.id, toolName: part.name, input: part.input, providerExecuted: true, ...options(part.providerData) },
    { type: "tool-result", toolCallId: part.id, toolName: part.name, output, ...options(part.providerData) },
  ];
}

function options(data: ProviderData | undefined): { providerOptions?: PartOptions } {
  return data && Object.keys(data).length > 0 ? { providerOptions: data as PartOptions } : {};
}

/**
 * Anthropic insists on an object for `tool_use.input`; a call whose arguments
 * never parsed would otherwise poison every later request of the session.
 */
function toolInput(input: unknown, wire: Wire): unknown {
  // Converse (Bedrock) insists on an object as well.
  if (wire !== "anthropic" && wire !== "converse") return input;
  let value = input;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      return {};
    }
  }
  return value !== null && typeof value === "object" && !Array.isArray(value) ? value : {};
}

function toolResult(message: ToolResultMessage, wire: Wire): { part: ToolResultPart; images: FilePart[] } {
  const text = message.content
    .filter((p): p is TextPart => p.type === "text")
    .map((p) => p.text)
    .join("\n");
  const images = message.content.filter((p): p is ImagePart => p.type === "image");
  let output: ToolResultPart["output"];
  let extraImages: FilePart[] = [];
  if (message.isError) {
    output = { type: "error-text", value: text };
  } else if (images.length === 0) {
    output = { type: "text", value: text };
  } else if (wire === "chat") {
    output = { type: "text", value: text };
    extraImages = images.map(filePart);
  } else {
    output = {
      type: "content",
      value: [
        ...(text ? [{ type: "text" as const, text }] : []),
        ...images.map((p) => ({ type: "image-data" as const, data: p.data, mediaType: p.mimeType })),
      ],
    };
  }
  return {
    part: { type: "tool-result", toolCallId: message.toolCallId, toolName: message.toolName, output },
    images: extraImages,
  };
}
