/**
 * ACP prompt content blocks as the model's user message. Text and images
 * pass through; embedded resources become tagged text; `file://` links
 * inside the session's directories are read (up to 2 MiB); anything else is
 * noted rather than silently dropped.
 * @module
 */
import type { ImagePart, TextPart } from "../models/types.ts";
import { resolveInRoots } from "../tools/paths.ts";
import type { Workspace } from "../tools/types.ts";
import { fileUrlToPath } from "../runtime/files/path.ts";
import { stat } from "../runtime/files/fs.ts";
import { decodeLinkedText, LINK_NOT_REGULAR, LINK_NOT_TEXT, LINK_TOO_LARGE, LINKED_FILE_LIMIT, linkNote, resourceText } from "../sessions/linked-resource.ts";
import { invalidParams } from "./errors.ts";
import type { ContentBlock } from "./sdk.ts";

/** The prompt's blocks as the parts of the model's user message; throws invalid params for what cannot be sent. */
export async function promptToContent(blocks: readonly ContentBlock[], workspace: Workspace): Promise<Array<TextPart | ImagePart>> {
  const parts: Array<TextPart | ImagePart> = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        if (block.text.trim() !== "") parts.push({ type: "text", text: block.text });
        break;
      case "image":
        if (!block.mimeType.startsWith("image/")) throw invalidParams(`image block has mimeType "${block.mimeType}", expected image/*`);
        if (!block.data) throw invalidParams("image block has no data");
        parts.push({ type: "image", data: block.data, mimeType: block.mimeType });
        break;
      case "audio":
        throw invalidParams("audio prompts are not supported (promptCapabilities.audio is false)");
      case "resource": {
        const resource = block.resource;
        if ("text" in resource) {
          parts.push({ type: "text", text: resourceText(resource.uri, resource.mimeType, resource.text) });
        } else if (resource.mimeType?.startsWith("image/")) {
          parts.push({ type: "image", data: resource.blob, mimeType: resource.mimeType });
        } else {
          const bytes = Math.floor((resource.blob.length * 3) / 4);
          parts.push({ type: "text", text: `[embedded resource ${resource.uri} (${resource.mimeType ?? "unknown type"}, ${bytes} bytes) was not decoded]` });
        }
        break;
      }
      case "resource_link":
        parts.push(await readLink(block.uri, block.mimeType ?? undefined, workspace));
        break;
    }
  }
  if (parts.length === 0) throw invalidParams("prompt is empty: send at least one non-empty text, image or resource block");
  return parts;
}

/** Characters a prompt's blocks carry (text, data, URIs), counted against a queue's budget. */
export function promptChars(blocks: readonly ContentBlock[]): number {
  let chars = 0;
  for (const block of blocks) {
    if (block.type === "text") chars += block.text.length;
    else if (block.type === "image" || block.type === "audio") chars += block.data.length;
    else if (block.type === "resource_link") chars += block.uri.length;
    else if (block.type === "resource") chars += "text" in block.resource ? block.resource.text.length : block.resource.blob.length;
  }
  return chars;
}

async function readLink(uri: string, mimeType: string | undefined, workspace: Workspace): Promise<TextPart> {
  const note = (why: string) => linkNote(uri, why);
  if (!uri.startsWith("file:")) return note("not a local file, so it was not read");
  let path: string;
  try {
    path = await resolveInRoots(fileUrlToPath(uri), workspace);
  } catch (error) {
    return note(error instanceof Error ? error.message : "outside the session's directories");
  }
  try {
    // Never open devices or FIFOs: a read could block the turn forever.
    if (!(await stat(path)).isFile) return note(LINK_NOT_REGULAR);
    const bytes = await workspace.readFileBytes(path, LINKED_FILE_LIMIT + 1);
    if (bytes.length > LINKED_FILE_LIMIT) return note(LINK_TOO_LARGE);
    const text = decodeLinkedText(bytes);
    return text === undefined ? note(LINK_NOT_TEXT) : { type: "text", text: resourceText(uri, mimeType, text) };
  } catch (error) {
    return note(`could not be read (${(error as { code?: string }).code ?? (error as Error).message})`);
  }
}
