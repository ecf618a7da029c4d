/**
 * Pieces of the page that show a run's text as the console shows it: a
 * tool's preview with its unified diffs coloured line by line, and an event
 * type that breaks only after its dots. The console's script does the same
 * (src/http/console-script.ts), in plain JS.
 */

/** What each line of a preview is, for its colour: a diff's file header, hunk header, added, removed or context line, a "\ No newline" note, or plain text. */
export type PreviewLine = "file" | "hunk" | "add" | "del" | "ctx" | "note" | "";

/**
 * The kind of each line of a preview (split on "\n"). A diff is read by its
 * hunks' own counts, so a removed line whose text starts with "-- " is a
 * removed line, never a file header; what is outside a diff (a shell's dry
 * run, an MCP server's notes) is plain.
 */
export function previewLines(lines: readonly string[]): PreviewLine[] {
  const kinds: PreviewLine[] = [];
  let older = 0;
  let newer = 0;
  let inDiff = false;
  let header = false;
  lines.forEach((line, k) => {
    let kind: PreviewLine = "";
    if (older > 0 || newer > 0) {
      const c = line[0];
      if (c === "+" && newer > 0) {
        kind = "add";
        newer--;
      } else if (c === "-" && older > 0) {
        kind = "del";
        older--;
      } else if (c === " " && older > 0 && newer > 0) {
        kind = "ctx";
        older--;
        newer--;
      } else if (c === "\\") kind = "note";
      else older = newer = 0;
    }
    if (kind === "") {
      const hunk = inDiff ? /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(line) : null;
      if (header) {
        kind = "file";
        header = false;
      } else if (line.startsWith("--- ") && (lines[k + 1] ?? "").startsWith("+++ ")) {
        kind = "file";
        header = true;
        inDiff = true;
      } else if (hunk !== null) {
        kind = "hunk";
        older = hunk[1] === undefined ? 1 : Number(hunk[1]);
        newer = hunk[2] === undefined ? 1 : Number(hunk[2]);
      } else if (inDiff && line.startsWith("\\ ")) kind = "note";
    }
    kinds.push(kind);
  });
  return kinds;
}

/** A preview as a `<pre class="preview">` whose text is the preview's, each coloured line a span of its own (class `d-<kind>`). */
export function previewView(text: string): HTMLPreElement {
  const pre = document.createElement("pre");
  pre.className = "preview";
  const lines = text.split("\n");
  const kinds = previewLines(lines);
  lines.forEach((line, k) => {
    const piece = line + (k < lines.length - 1 ? "\n" : "");
    if (piece === "") return;
    if (kinds[k] === "") pre.append(piece);
    else {
      const span = document.createElement("span");
      span.className = `d-${kinds[k]}`;
      span.textContent = piece;
      pre.append(span);
    }
  });
  return pre;
}

/** An event type's cell, breakable only after its dots ("approval." / "requested"). */
export function typeCell(type: string): HTMLTableCellElement {
  const td = document.createElement("td");
  td.className = "type";
  const parts = type.split(".");
  parts.forEach((part, k) => {
    td.append(k < parts.length - 1 ? `${part}.` : part);
    if (k < parts.length - 1) td.append(document.createElement("wbr"));
  });
  return td;
}
