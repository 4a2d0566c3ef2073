/**
 * `@path` in a command file (`Review @src/app.ts`), as Claude Code reads it:
 * the file is embedded in the prompt like a `resource_link` the editor sends.
 * The command file comes with the repository, so the file is opened on the
 * agent's own: with `readConfinedBytes`, inside the session's roots only —
 * `@~/.ssh/id_rsa`, `@/etc/passwd` or a link out of the project become a note
 * saying why they were not read. A name that leads to nothing (`@types/node`,
 * `@team`) is left as text. At most 20 files and 4 MiB in all.
 * @module
 */
import type { TextPart } from "../models/types.ts";
import { describeSkip, readConfinedBytes } from "../runtime/files/confined-file.ts";
import { pathToFileUrl } from "../runtime/files/path.ts";
import { redact } from "../runtime/secrets.ts";
import { toAbsolute } from "../tools/paths.ts";
import { decodeLinkedText, LINK_NOT_TEXT, LINK_TOO_LARGE, LINKED_FILE_LIMIT, linkNote, resourceText } from "./linked-resource.ts";

const MAX_REFERENCES = 20;
const MAX_TOTAL_BYTES = 4 * 1024 * 1024;
/** `@` at the start or after white space, then a path; an e-mail address (`a@b.c`) is not one. */
const REFERENCE = /(?:^|(?<=[\s(]))@([^\s`'"<>()]+)/g;
/** Punctuation that ends a sentence rather than a path. */
const TRAILING = /[.,;:!?\]}]+$/;

/** The distinct `@path` references in `text`, in order. */
export function fileReferences(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(REFERENCE)) {
    const path = match[1]!.replace(TRAILING, "");
    if (path !== "" && !found.includes(path)) found.push(path);
  }
  return found;
}

/**
 * The files `text` references, embedded as the model reads linked resources
 * (or notes for those refused); `cwd` resolves relative paths, `roots` (the
 * session's resolved roots) bound where they may lead.
 */
export async function embedReferences(text: string, cwd: string, roots: readonly string[]): Promise<TextPart[]> {
  const parts: TextPart[] = [];
  let total = 0;
  let looked = 0;
  const references = fileReferences(text);
  for (const reference of references) {
    if (looked === MAX_REFERENCES) {
      parts.push({ type: "text", text: `[${references.length - looked} more @ references were not looked at: a command embeds at most ${MAX_REFERENCES} files]` });
      break;
    }
    looked++;
    const path = toAbsolute(reference, cwd);
    const uri = pathToFileUrl(path).href;
    const read = await readConfinedBytes(path, { areas: roots, budget: LINKED_FILE_LIMIT });
    if (!read.ok) {
      if (read.reason === "missing") continue;
      const why = read.reason === "too-large" ? LINK_TOO_LARGE : `${describeSkip(read, "the session's directories", LINKED_FILE_LIMIT)}, so it was not read`;
      parts.push(linkNote(uri, why));
      continue;
    }
    const content = decodeLinkedText(read.bytes);
    if (content === undefined) {
      parts.push(linkNote(uri, LINK_NOT_TEXT));
      continue;
    }
    if (total + read.bytes.length > MAX_TOTAL_BYTES) {
      parts.push(linkNote(uri, `the files a command embeds are limited to ${MAX_TOTAL_BYTES / (1024 * 1024)} MiB in all, so it was not embedded; use the read tool`));
      continue;
    }
    total += read.bytes.length;
    // The command file chose this file, not the user: what is read is redacted like anything the agent reads on its own.
    parts.push({ type: "text", text: resourceText(uri, undefined, redact(content)) });
  }
  return parts;
}
