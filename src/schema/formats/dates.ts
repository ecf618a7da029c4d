/**
 * The date and time formats of JSON Schema, as RFC 3339 defines them:
 * `date` (full-date), `time` (full-time), `date-time` (section 5.6) and
 * `duration` (Appendix A). ABNF strings are case-insensitive (RFC 5234,
 * section 2.3), so "t", "z" and the duration designators may be lower case.
 */

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:z|([+-])(\d{2}):(\d{2}))$/i;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const isLeapYear = (y: number): boolean => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);

/** RFC 3339 full-date: `2024-02-29`, with the month's real number of days. */
export function isDate(s: string): boolean {
  const m = DATE.exec(s);
  if (m === null) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= (month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1]!);
}

/**
 * RFC 3339 full-time: `23:20:50.52Z`, `08:30:06-08:00`. The offset is
 * required. A leap second (`:60`) is valid only where it falls at 23:59:60
 * UTC, the only minute a leap second can end.
 */
export function isTime(s: string): boolean {
  const m = TIME.exec(s);
  if (m === null) return false;
  const hour = Number(m[1]);
  const minute = Number(m[2]);
  const second = Number(m[3]);
  const sign = m[4];
  const offsetHour = sign === undefined ? 0 : Number(m[5]);
  const offsetMinute = sign === undefined ? 0 : Number(m[6]);
  if (hour > 23 || minute > 59 || second > 60 || offsetHour > 23 || offsetMinute > 59) return false;
  if (second < 60) return true;
  const offset = (offsetHour * 60 + offsetMinute) * (sign === "-" ? -1 : 1);
  const utc = (((hour * 60 + minute - offset) % 1440) + 1440) % 1440;
  return utc === 23 * 60 + 59;
}

/** RFC 3339 date-time: a full-date, "T" (or "t"), a full-time. */
export function isDateTime(s: string): boolean {
  const t = s.length > 10 ? s[10] : undefined;
  return (t === "T" || t === "t") && isDate(s.slice(0, 10)) && isTime(s.slice(11));
}

// RFC 3339 Appendix A, rule for rule:
//   duration = "P" (dur-date / dur-time / dur-week)
//   dur-date = (dur-day / dur-month / dur-year) [dur-time]
//   dur-time = "T" (dur-hour / dur-minute / dur-second)
//   dur-year = 1*DIGIT "Y" [dur-month], dur-month = 1*DIGIT "M" [dur-day], dur-day = 1*DIGIT "D"
//   dur-hour = 1*DIGIT "H" [dur-minute], dur-minute = 1*DIGIT "M" [dur-second], dur-second = 1*DIGIT "S"
//   dur-week = 1*DIGIT "W"
const DUR_TIME = String.raw`T(?:\d+H(?:\d+M(?:\d+S)?)?|\d+M(?:\d+S)?|\d+S)`;
const DUR_DATE = String.raw`(?:\d+D|\d+M(?:\d+D)?|\d+Y(?:\d+M(?:\d+D)?)?)(?:${DUR_TIME})?`;
const DURATION = new RegExp(String.raw`^P(?:${DUR_DATE}|${DUR_TIME}|\d+W)$`, "i");

/** RFC 3339 Appendix A duration: `P4DT12H30M5S`, `PT36H`, `P2W`. */
export function isDuration(s: string): boolean {
  return DURATION.test(s);
}
