/**
 * UTF-8 helpers for error reporting. Validation itself is the platform's
 * (`TextDecoder` with `fatal: true`); these run only once it has refused, to
 * say where and why.
 */

const hex = (b: number): string => `0x${b.toString(16).toUpperCase().padStart(2, "0")}`;

/**
 * The first ill-formed sequence in `bytes` (per the Unicode standard's table
 * of well-formed UTF-8), as its offset and a stable reason. Call only on
 * bytes known to be invalid; on valid bytes it returns the end offset.
 */
export function firstInvalidUtf8(bytes: Uint8Array): { offset: number; reason: string } {
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b === 0xe0) ((need = 2), (lo = 0xa0));
    else if (b === 0xed) ((need = 2), (hi = 0x9f));
    else if (b >= 0xe1 && b <= 0xef) need = 2;
    else if (b === 0xf0) ((need = 3), (lo = 0x90));
    else if (b === 0xf4) ((need = 3), (hi = 0x8f));
    else if (b >= 0xf1 && b <= 0xf3) need = 3;
    else return { offset: i, reason: `invalid UTF-8 byte ${hex(b)}` };
    for (let k = 1; k <= need; k++) {
      if (i + k >= n) {
        const seq = Array.from(bytes.subarray(i, n), hex).join(" ");
        return { offset: i, reason: `truncated UTF-8 sequence ${seq} at end of input` };
      }
      const c = bytes[i + k]!;
      if (c < (k === 1 ? lo : 0x80) || c > (k === 1 ? hi : 0xbf)) {
        const seq = Array.from(bytes.subarray(i, i + k + 1), hex).join(" ");
        return { offset: i, reason: `invalid UTF-8 sequence ${seq}` };
      }
    }
    i += need + 1;
  }
  return { offset: n, reason: "no invalid UTF-8" };
}

/** The number of UTF-8 bytes of `text.slice(0, end)`. */
export function utf8Length(text: string, end: number = text.length): number {
  let bytes = 0;
  for (let k = 0; k < end; k++) {
    const u = text.charCodeAt(k);
    if (u < 0x80) bytes += 1;
    else if (u < 0x800) bytes += 2;
    else if (u >= 0xd800 && u <= 0xdbff && k + 1 < end) {
      const v = text.charCodeAt(k + 1);
      if (v >= 0xdc00 && v <= 0xdfff) {
        bytes += 4;
        k++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}
