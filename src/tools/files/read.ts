/**
 * The `read` tool: a text file's lines (raw, no line numbers) with pi's
 * continuation notes, or an image as an attachment.
 * @module
 */
import * as v from "valibot";
import { statOrUndefined } from "../../runtime/files/fs.ts";
import { throwIfAborted } from "../search/file-walker.ts";
import { displayPath, resolveInRoots, toAbsolute } from "../paths.ts";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize, truncateHeadWithNotice, utf8Length } from "../truncate.ts";
import { ToolError, type ToolDefinition, type ToolResult } from "../types.ts";

/** Larger text files are refused outright: reading them whole would only be thrown away. */
export const MAX_READ_FILE_BYTES = 64 * 1024 * 1024;
/** Larger images are not attached (providers reject them). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
const SNIFF_BYTES = 8 * 1024;

export const ReadInput = v.object({
  path: v.pipe(v.string(), v.description("Path to the file to read (relative or absolute)")),
  offset: v.optional(v.pipe(v.number(), v.description("Line number to start reading from (1-indexed)"))),
  limit: v.optional(v.pipe(v.number(), v.description("Maximum number of lines to read"))),
});

/** The image type of `head` by its magic bytes, if it is one the models accept. */
export function detectImageMimeType(head: Uint8Array): string | undefined {
  const starts = (bytes: number[], at = 0) => bytes.every((b, i) => head[at + i] === b);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (starts([0xff, 0xd8, 0xff])) return "image/jpeg";
  if (starts([0x47, 0x49, 0x46, 0x38]) && (head[4] === 0x37 || head[4] === 0x39) && head[5] === 0x61) {
    return "image/gif";
  }
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return "image/webp";
  return undefined;
}

/** Base64 without `Buffer`, in chunks so `String.fromCharCode` never gets too many arguments. */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

function splitLines(text: string): string[] {
  const lines = text.split("\n");
  // A final newline ends the last line; it does not start another one.
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

export const readTool: ToolDefinition<typeof ReadInput> = {
  name: "read",
  description:
    `Read the contents of a file. Supports text files and images (jpg, png, gif, webp). Images are sent as attachments. ` +
    `For text files, output is truncated to ${DEFAULT_MAX_LINES} lines or ${DEFAULT_MAX_BYTES / 1024}KB (whichever is hit first). ` +
    `Use offset/limit for large files. When you need the full file, continue with offset until complete.`,
  promptSnippet: "Read file contents",
  promptGuidelines: ["Use read to examine files instead of cat or sed."],
  schema: ReadInput,
  kind: "read",
  readOnly: true,

  access(input, workspace) {
    return { class: "read", paths: [toAbsolute(input.path, workspace.cwd)] };
  },

  describe(input, workspace) {
    const absolute = toAbsolute(input.path, workspace.cwd);
    const from = input.offset !== undefined ? ` (from line ${input.offset})` : "";
    return {
      title: `Read ${displayPath(absolute, workspace.cwd)}${from}`,
      locations: [{ path: absolute, line: input.offset ?? 1 }],
    };
  },

  async execute(input, { workspace, signal, outsideRootsApproved }): Promise<ToolResult> {
    throwIfAborted(signal);
    const absolute = await resolveInRoots(input.path, workspace, "read", outsideRootsApproved);
    const shown = displayPath(absolute, workspace.cwd);
    // stat first: opening a FIFO or a device would block or never end.
    const info = await statOrUndefined(absolute);
    if (!info) throw new ToolError(`File not found: ${shown}`);
    if (info.isDirectory) throw new ToolError(`${shown} is a directory; use ls to list it.`);
    if (!info.isFile) throw new ToolError(`${shown} is not a regular file.`);
    if (info.size > MAX_READ_FILE_BYTES) {
      throw new ToolError(
        `${shown} is ${formatSize(info.size)}, over the ${formatSize(MAX_READ_FILE_BYTES)} read limit. ` +
          `Use grep to find the part you need, or read a narrower range with offset/limit after locating it.`,
      );
    }

    const head = await workspace.readFileBytes(absolute, SNIFF_BYTES);
    throwIfAborted(signal);
    const mimeType = detectImageMimeType(head);
    if (mimeType) {
      const details = { path: absolute, mimeType, bytes: info.size };
      if (info.size > MAX_IMAGE_BYTES) {
        const text =
          `Read image file [${mimeType}]\nImage is ${formatSize(info.size)}, over the ` +
          `${formatSize(MAX_IMAGE_BYTES)} limit for attachments; not sent.`;
        return { content: [{ type: "text", text }], details };
      }
      const data = toBase64(await workspace.readFileBytes(absolute));
      throwIfAborted(signal);
      return {
        content: [
          { type: "text", text: `Read image file [${mimeType}]` },
          { type: "image", data, mimeType },
        ],
        details,
      };
    }
    if (head.includes(0)) {
      return {
        content: [{ type: "text", text: `Binary file (${info.size} bytes); not shown.` }],
        details: { path: absolute, binary: true, bytes: info.size },
      };
    }

    const text = await workspace.readTextFile(absolute, signal);
    throwIfAborted(signal);
    return textResult(text, input, absolute);
  },
};

function textResult(text: string, input: v.InferOutput<typeof ReadInput>, absolute: string): ToolResult {
  const lines = splitLines(text);
  const total = lines.length;
  const start = input.offset !== undefined ? Math.max(1, Math.floor(input.offset)) : 1;
  if (total === 0 && start === 1) {
    return {
      content: [{ type: "text", text: "(empty file)" }],
      details: { path: absolute, totalLines: 0, shownFrom: 0, shownTo: 0, truncated: false },
    };
  }
  if (start > total) throw new ToolError(`Offset ${input.offset} is beyond end of file (${total} lines total)`);

  const limit = input.limit !== undefined ? Math.max(1, Math.floor(input.limit)) : undefined;
  const selectedEnd = limit !== undefined ? Math.min(start - 1 + limit, total) : total;
  const selected = lines.slice(start - 1, selectedEnd).join("\n");

  let shownTo = selectedEnd;
  const { text: output, result } = truncateHeadWithNotice(selected, (r) => {
    if (r.truncated) {
      const end = start + r.outputLines - 1;
      const size = r.truncatedBy === "bytes" ? ` (${formatSize(DEFAULT_MAX_BYTES)} limit)` : "";
      return `\n\n[Showing lines ${start}-${end} of ${total}${size}. Use offset=${end + 1} to continue.]`;
    }
    if (selectedEnd < total) {
      return `\n\n[${total - selectedEnd} more lines in file. Use offset=${selectedEnd + 1} to continue.]`;
    }
    return "";
  });

  if (result.firstLineExceedsLimit) {
    const size = formatSize(utf8Length(lines[start - 1] ?? ""));
    const hint =
      `[Line ${start} is ${size}, exceeds ${formatSize(DEFAULT_MAX_BYTES)} limit. ` +
      `Use bash: sed -n '${start}p' ${input.path} | head -c ${DEFAULT_MAX_BYTES}]`;
    return {
      content: [{ type: "text", text: hint }],
      details: { path: absolute, totalLines: total, shownFrom: start, shownTo: start - 1, truncated: true, nextOffset: start },
    };
  }
  if (result.truncated) shownTo = start + result.outputLines - 1;
  const more = shownTo < total;
  return {
    content: [{ type: "text", text: output }],
    details: {
      path: absolute,
      totalLines: total,
      shownFrom: start,
      shownTo,
      truncated: result.truncated,
      ...(more ? { nextOffset: shownTo + 1 } : {}),
    },
  };
}
