/*
 * Parsers of option values. They throw plain errors, which addOptions (program.ts) turns into
 * commander's "invalid argument" usage errors: no commander here, since the global options that
 * use them are read by the first stage too (command-line.ts), which must not load it.
 */

/** Parses a positive number of seconds for the option `flagName`. */
export function seconds(flagName: string): (raw: string) => number {
  return (raw) => {
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0)
      throw new Error(`${flagName} takes a positive number of seconds, not ${JSON.stringify(raw)}`);
    return n;
  };
}

export function portNumber(raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new Error(`a port is a whole number from 0 to 65535, not ${JSON.stringify(raw)}`);
  return n;
}

const MOMENT = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * An ISO 8601 date or date-time in the future, as epoch milliseconds; local time when it has no
 * offset (a bare date is local midnight, where `Date` alone would read it as UTC).
 */
export function futureMoment(flagName: string, now: () => number = Date.now): (raw: string) => number {
  return (raw) => {
    const m = MOMENT.exec(raw.trim());
    const bad = () =>
      new Error(
        `${flagName} takes an ISO 8601 date or date-time such as 2027-01-31 or 2027-01-31T18:00 (local time) or 2027-01-31T18:00Z, not ${JSON.stringify(raw)}`,
      );
    if (!m) throw bad();
    const [, y, mo, d, h = '00', mi = '00', s = '00', offset] = m;
    const ms = Date.parse(
      `${y}-${mo}-${d}T${h}:${mi}:${s}${offset === undefined ? '' : offset.length === 5 ? `${offset.slice(0, 3)}:${offset.slice(3)}` : offset}`,
    );
    // Date rolls 2027-02-30 over into March; a day the calendar lacks is a typo, not a wish.
    const local = new Date(Number(y), Number(mo) - 1, Number(d));
    if (Number.isNaN(ms) || local.getMonth() !== Number(mo) - 1 || local.getDate() !== Number(d)) throw bad();
    if (ms <= now())
      throw new Error(`${flagName} must be in the future; ${raw} (${new Date(ms).toISOString()}) has passed`);
    return ms;
  };
}

/** Parses a whole number of at least 1 for the option `flagName`, e.g. `--parallel`. */
export function positiveInt(flagName: string): (raw: string) => number {
  return (raw) => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1)
      throw new Error(`${flagName} takes a whole number of at least 1, not ${JSON.stringify(raw)}`);
    return n;
  };
}
