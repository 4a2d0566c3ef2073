/**
 * ACP prompt content blocks as the model's user message, in two steps so that
 * nothing is read before the whole message is known to fit: `planPrompt`
 * checks every block and sizes every linked file (resolved inside the
 * session's directories, `stat`ed, never opened) against the message's
 * budget (see sessions/prompt-budget.ts) and refuses the message `-32602`
 * when it does not fit; `plan.read` then reads each distinct file once.
 * Text and images pass through; embedded resources become tagged text;
 * anything else is noted rather than silently dropped.
 * @module
 */
import type { ImagePart, TextPart } from "../../models/types.ts";
import { resolveInRoots } from "../../tools/paths.ts";
import type { Workspace } from "../../tools/types.ts";
import { fileUrlToPath } from "../../runtime/files/path.ts";
import { stat } from "../../runtime/files/fs.ts";
import { decodeLinkedText, LINK_NOT_REGULAR, LINK_NOT_TEXT, LINK_TOO_LARGE, LINKED_FILE_LIMIT, linkNote, resourceText } from "../../sessions/setup/linked-resource.ts";
import { exactBytes, formatBytes, PROMPT_LINK_LIMIT } from "../../sessions/turns/prompt-budget.ts";
import { checkImage } from "./image-data.ts";
import { invalidParams } from "../errors.ts";
import type { ContentBlock } from "../sdk.ts";

type Part = TextPart | ImagePart;

/** Why a file linked again is not embedded again. */
const SAME_FILE = "the same file as linked above, so it was not embedded again";

/** What a part costs of the budget: its text or its image data, as characters. */
function partBytes(part: Part): number {
  return part.type === "text" ? part.text.length : part.data.length;
}

/** A message checked against its budget: what it will cost, and how to read it. */
export interface PromptPlan {
  /** Bytes the message expands into (each distinct linked file counted once). */
  readonly bytes: number;
  /** The message as the model's user content; `leadingText` replaces its first block (an expanded template). */
  read(leadingText?: string): Promise<Part[]>;
}

/** One block, ready: a part to send, or a linked file to read once the message is known to fit. */
type Planned = { part: Part } | { link: LinkedFile };

interface LinkedFile {
  uri: string;
  mimeType: string | undefined;
  path: string;
  /** Bytes it had when it was sized; it is read with no more than that. */
  size: number;
}

/**
 * Checks `blocks` and sizes what they expand into (text, image data, the
 * notes that stand in for what is not embedded, each distinct linked file's
 * size once); throws invalid params for content no provider accepts and for
 * a message over `budget` bytes.
 */
export async function planPrompt(blocks: readonly ContentBlock[], workspace: Workspace, budget: number): Promise<PromptPlan> {
  const planned: Planned[] = [];
  // Every distinct URI, looked at once: what it became.
  const links = new Map<string, Planned>();
  let bytes = 0;
  const images: Array<{ data: string; mimeType: string; what: string }> = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        bytes += block.text.length;
        if (block.text.trim() !== "") planned.push({ part: { type: "text", text: block.text } });
        break;
      case "image":
        images.push({ data: block.data, mimeType: block.mimeType, what: "image block" });
        bytes += block.data.length;
        planned.push({ part: { type: "image", data: block.data, mimeType: block.mimeType } });
        break;
      case "audio":
        throw invalidParams("audio prompts are not supported (promptCapabilities.audio is false)");
      case "resource": {
        const resource = block.resource;
        if ("text" in resource) {
          bytes += resource.text.length;
          planned.push({ part: { type: "text", text: resourceText(resource.uri, resource.mimeType, resource.text) } });
        } else if (resource.mimeType?.startsWith("image/")) {
          images.push({ data: resource.blob, mimeType: resource.mimeType, what: "embedded image resource" });
          bytes += resource.blob.length;
          planned.push({ part: { type: "image", data: resource.blob, mimeType: resource.mimeType } });
        } else {
          const size = Math.floor((resource.blob.length * 3) / 4);
          const note: Part = { type: "text", text: `[embedded resource ${resource.uri} (${resource.mimeType ?? "unknown type"}, ${size} bytes) was not decoded]` };
          bytes += partBytes(note);
          planned.push({ part: note });
        }
        break;
      }
      case "resource_link": {
        const known = links.get(block.uri);
        if (known) {
          // Looked at once: a link named again repeats the note, or says the file is above.
          const again: Planned = "part" in known ? known : { part: linkNote(block.uri, SAME_FILE) };
          bytes += partBytes(again.part);
          planned.push(again);
          break;
        }
        if (links.size === PROMPT_LINK_LIMIT) throw invalidParams(`the message links more than ${PROMPT_LINK_LIMIT} distinct resources; link fewer, or let the agent find them with its tools`, { code: "prompt_too_large", linkLimit: PROMPT_LINK_LIMIT });
        const sized = await sizeLink(block.uri, block.mimeType ?? undefined, workspace);
        links.set(block.uri, sized);
        bytes += "part" in sized ? partBytes(sized.part) : sized.link.size;
        planned.push(sized);
        break;
      }
    }
  }
  if (planned.length === 0) throw invalidParams("prompt is empty: send at least one non-empty text, image or resource block");
  if (bytes > budget) throw overBudget(bytes, budget);
  // Checked once the message is known to fit: a message too large is told so, whatever its images hold.
  for (const image of images) checkImage(image.data, image.mimeType, image.what);
  return { bytes, read: (leadingText) => readPlanned(planned, blocks, leadingText, workspace) };
}

/** The refusal of a message that expands past its budget. */
export function overBudget(bytes: number, budget: number) {
  return invalidParams(
    `the message expands to ${exactBytes(bytes)} (text, images and linked files), over this session's per-message budget of ${exactBytes(budget)} (${formatBytes(budget)}); ` +
      "link fewer or smaller files, or let the agent read them with its tools",
    { code: "prompt_too_large", budget, requested: bytes },
  );
}

async function readPlanned(planned: readonly Planned[], blocks: readonly ContentBlock[], leadingText: string | undefined, workspace: Workspace): Promise<Part[]> {
  const parts: Part[] = [];
  const start = leadingText === undefined ? 0 : 1;
  if (leadingText !== undefined && leadingText.trim() !== "") parts.push({ type: "text", text: leadingText });
  // The plan has one entry per block except blank text; the replaced leading block is skipped by position.
  let index = 0;
  for (const [at, block] of blocks.entries()) {
    const isBlank = block.type === "text" && block.text.trim() === "";
    if (isBlank) continue;
    const entry = planned[index++]!;
    if (at < start) continue;
    if ("part" in entry) parts.push(entry.part);
    else parts.push(await readLink(entry.link, workspace));
  }
  if (parts.length === 0) throw invalidParams("prompt is empty: send at least one non-empty text, image or resource block");
  return parts;
}

/** Where a link leads and how large it is, without opening it; a note when it will not be read. */
async function sizeLink(uri: string, mimeType: string | undefined, workspace: Workspace): Promise<Planned> {
  const note = (why: string) => ({ part: linkNote(uri, why) });
  if (!uri.startsWith("file:")) return note("not a local file, so it was not read");
  let path: string;
  try {
    path = await resolveInRoots(fileUrlToPath(uri), workspace);
  } catch (error) {
    return note(error instanceof Error ? error.message : "outside the session's directories");
  }
  try {
    const info = await stat(path);
    // Never open devices or FIFOs: a read could block the turn forever.
    if (!info.isFile) return note(LINK_NOT_REGULAR);
    if (info.size > LINKED_FILE_LIMIT) return note(LINK_TOO_LARGE);
    return { link: { uri, mimeType, path, size: info.size } };
  } catch (error) {
    return note(`could not be read (${(error as { code?: string }).code ?? (error as Error).message})`);
  }
}

async function readLink(link: LinkedFile, workspace: Workspace): Promise<TextPart> {
  const note = (why: string) => linkNote(link.uri, why);
  try {
    // No more than it was sized at: a file that grew since cannot spend more than the budget allowed it.
    const bytes = await workspace.readFileBytes(link.path, link.size + 1);
    if (bytes.length > link.size) return note("it grew after the message was checked, so it was not embedded; use the read tool");
    const text = decodeLinkedText(bytes);
    return text === undefined ? note(LINK_NOT_TEXT) : { type: "text", text: resourceText(link.uri, link.mimeType, text) };
  } catch (error) {
    return note(`could not be read (${(error as { code?: string }).code ?? (error as Error).message})`);
  }
}
