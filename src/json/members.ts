/**
 * How many object members a value `JSON.parse` built holds, at every level:
 * the fast check (fast-check.ts) compares it with the colons of the text
 * to find a repeated key without remembering keys. `for-in` is used while
 * nobody has added an enumerable property to Object.prototype (it then
 * sees own keys only, and is the faster), `Object.keys` otherwise.
 */

/** The number of object members in a parsed value, all levels. */
export function members(v: unknown): number {
  return prototypeClean() ? membersFast(v) : membersOwn(v);
}

const EMPTY = {};

/** Whether Object.prototype has no enumerable property (nobody added one), so for-in sees own keys only. */
function prototypeClean(): boolean {
  for (const _ in EMPTY) return false;
  return true;
}

function membersFast(v: unknown): number {
  if (typeof v !== "object" || v === null) return 0;
  let count = 0;
  if (Array.isArray(v)) {
    for (let k = 0; k < v.length; k++) {
      const item: unknown = v[k];
      if (typeof item === "object" && item !== null) count += membersFast(item);
    }
    return count;
  }
  for (const key in v) {
    count++;
    const item = (v as Record<string, unknown>)[key];
    if (typeof item === "object" && item !== null) count += membersFast(item);
  }
  return count;
}

function membersOwn(v: unknown): number {
  if (typeof v !== "object" || v === null) return 0;
  let count = 0;
  if (Array.isArray(v)) {
    for (let k = 0; k < v.length; k++) count += membersOwn(v[k]);
    return count;
  }
  const keys = Object.keys(v);
  count = keys.length;
  for (let k = 0; k < keys.length; k++) count += membersOwn((v as Record<string, unknown>)[keys[k]!]);
  return count;
}
