/**
 * HTML reduced to readable text for a model, without a parser or eval:
 * scripts, styles and comments dropped, block elements become line breaks,
 * links keep their target, entities decoded, whitespace collapsed.
 */
const NAMED: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  ndash: "–",
  mdash: "—",
  hellip: "…",
  copy: "©",
  reg: "®",
  laquo: "«",
  raquo: "»",
  rsquo: "’",
  lsquo: "‘",
  rdquo: "”",
  ldquo: "“",
};

/** `text` with HTML character references decoded: numeric ones, and the common named ones (others are left as written; an invalid code point becomes U+FFFD). */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]{1,6}|#\d{1,7}|[A-Za-z]{2,8});/g, (whole, e: string) => {
    if (e[0] === "#") {
      const code = e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : "\uFFFD";
    }
    return NAMED[e.toLowerCase()] ?? whole;
  });
}

const BLOCK = /^(?:p|div|br|li|ul|ol|tr|table|section|article|header|footer|nav|aside|main|h[1-6]|pre|blockquote|hr|dd|dt|dl|figure|figcaption|form|title)$/i;

/** `html` as readable text: scripts, styles and comments dropped, block elements as line breaks, links with their target, entities decoded, whitespace collapsed. */
export function htmlToText(html: string): string {
  let s = html
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/<(script|style|noscript|template|svg|head)\b[\s\S]*?<\/\1\s*>/gi, (m, tag: string) =>
      tag.toLowerCase() === "head" ? (/<title\b[^>]*>([\s\S]*?)<\/title>/i.exec(m)?.[1] ?? "") + "\n" : " ",
    );
  s = s.replace(/<a\b[^>]*\bhref\s*=\s*("([^"]*)"|'([^']*)')[^>]*>([\s\S]*?)<\/a\s*>/gi, (_m, _q, d: string | undefined, sq: string | undefined, inner: string) => {
    const href = (d ?? sq ?? "").trim();
    const text = inner.replace(/<[^>]*>/g, "").trim();
    return href === "" || href.startsWith("#") || href.startsWith("javascript:") ? text : `${text} (${href})`;
  });
  s = s.replace(/<\/?([A-Za-z][A-Za-z0-9-]*)\b[^>]*>/g, (_m, tag: string) => (BLOCK.test(tag) ? "\n" : tag.toLowerCase() === "td" || tag.toLowerCase() === "th" ? " " : ""));
  s = decodeEntities(s);
  return s
    .split("\n")
    .map((l) => l.replace(/[ \t\f\v\u00a0]+/g, " ").trim())
    .filter((l) => l !== "")
    .join("\n")
    .trim();
}
