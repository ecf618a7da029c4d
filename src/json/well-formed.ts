/** True when `s` holds no unpaired surrogate (a JS fallback for ES2024's `String.prototype.isWellFormed`). */
export function isWellFormed(s: string): boolean {
  for (let k = 0; k < s.length; k++) {
    const u = s.charCodeAt(k);
    if (u < 0xd800 || u > 0xdfff) continue;
    if (u <= 0xdbff && k + 1 < s.length) {
      const v = s.charCodeAt(k + 1);
      if (v >= 0xdc00 && v <= 0xdfff) {
        k++;
        continue;
      }
    }
    return false;
  }
  return true;
}

/** `String.prototype.isWellFormed` where the platform has it (ES2024), else {@link isWellFormed}. */
export const wellFormed: (s: string) => boolean =
  typeof (String.prototype as { isWellFormed?: () => boolean }).isWellFormed === "function" ? (s) => (s as string & { isWellFormed(): boolean }).isWellFormed() : isWellFormed;
