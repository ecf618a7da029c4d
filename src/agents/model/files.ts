/**
 * The files a user's message carries (v5), as a model is shown them: the
 * driver hands the adapter their bytes with the view (`AgentView.files`),
 * and each adapter writes them in its provider's parts. Here: which kind
 * of part a file is, its data URL, and the note a model reads in place of
 * a file it cannot take or that is not there.
 */
import { base64Of } from "../../base64.js";
import type { MessageFile } from "../../journal/index.js";
import { decodeUtf8Fatal } from "../../web.js";

/** How a file is shown: an image, a document (PDF), text, or a note in its place. */
export type FilePart =
  | { readonly kind: "image"; readonly file: MessageFile; readonly base64: string }
  | { readonly kind: "pdf"; readonly file: MessageFile; readonly base64: string }
  | { readonly kind: "text"; readonly file: MessageFile; readonly text: string }
  | { readonly kind: "note"; readonly file: MessageFile; readonly note: string };

const IMAGES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

const described = (f: MessageFile): string => `${f.name === undefined ? "a file" : JSON.stringify(f.name)} (${f.mediaType}, ${f.size} bytes)`;

/** One file of a message as a part, from the bytes the view carries. */
export function filePart(f: MessageFile, files: ReadonlyMap<string, Uint8Array> | undefined): FilePart {
  const bytes = files?.get(f.sha256);
  if (bytes === undefined) return { kind: "note", file: f, note: `[The user sent ${described(f)}, which is not available here.]` };
  if (IMAGES.has(f.mediaType)) return { kind: "image", file: f, base64: base64Of(bytes) };
  if (f.mediaType === "application/pdf") return { kind: "pdf", file: f, base64: base64Of(bytes) };
  if (f.mediaType.startsWith("text/") || f.mediaType === "application/json") {
    try {
      return { kind: "text", file: f, text: decodeUtf8Fatal(bytes) };
    } catch {
      // Not UTF-8: a note, below.
    }
  }
  return { kind: "note", file: f, note: `[The user sent ${described(f)}: this model is shown images, PDFs and text files only.]` };
}

/** A text file's part as text the model reads. */
export const fileText = (p: Extract<FilePart, { kind: "text" }>): string => `[File ${JSON.stringify(p.file.name ?? "attached")} (${p.file.mediaType}):]\n${p.text}`;

/** The data URL of an image's or a PDF's bytes. */
export const dataUrl = (p: Extract<FilePart, { kind: "image" | "pdf" }>): string => `data:${p.file.mediaType};base64,${p.base64}`;
