/**
 * ISO dates and date-times from query parameters. A date alone ("2024-05-01") means the
 * whole UTC day, so a range's end date is inclusive; a date-time without an offset is UTC.
 */
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})?$/i;

export type DateBound = { at: Date; dateOnly: boolean };

/**
 * The instants a bound may take: years 0001 to 9999 in UTC. Postgres has no year 0, and JS
 * writes a year past 9999 as "+010000-…", which it cannot read either.
 */
const EARLIEST = Date.parse("0001-01-01T00:00:00.000Z");
const LATEST = Date.parse("9999-12-31T23:59:59.999Z");
const inRange = (at: Date) => at.getTime() >= EARLIEST && at.getTime() <= LATEST;

/** Parses a date or date-time; null when malformed, not a real calendar date, or outside years 0001–9999 UTC. */
export function parseIsoDate(text: string): DateBound | null {
  const value = text.trim();
  const date = DATE.exec(value);
  if (date) {
    const at = new Date(`${value}T00:00:00.000Z`);
    return Number.isNaN(at.getTime()) || at.toISOString().slice(0, 10) !== value || !inRange(at) ? null : { at, dateOnly: true };
  }
  const dt = DATE_TIME.exec(value);
  if (!dt) return null;
  const day = `${dt[1]}-${dt[2]}-${dt[3]}`;
  if (new Date(`${day}T00:00:00.000Z`).toISOString().slice(0, 10) !== day) return null;
  if (Number(dt[4]) > 23 || Number(dt[5]) > 59 || Number(dt[6] ?? 0) > 59) return null;
  const at = new Date(dt[8] ? value : `${value}Z`);
  return Number.isNaN(at.getTime()) || !inRange(at) ? null : { at, dateOnly: false };
}

/** The first instant of a range starting at `bound` (inclusive). */
export const rangeStart = (bound: DateBound): Date => bound.at;

/**
 * The first instant after a range ending at `bound` (inclusive): the next day for a date, the
 * next millisecond for a date-time; an end on 9999-12-31 stops at that year's last instant.
 */
export const rangeEndExclusive = (bound: DateBound): Date =>
  new Date(Math.min(bound.at.getTime() + (bound.dateOnly ? 86_400_000 : 1), LATEST));

/** 00:00 UTC of the day `now` falls in. */
export const startOfUtcDay = (now: Date): Date => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
