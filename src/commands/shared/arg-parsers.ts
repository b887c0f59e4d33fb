import { InvalidArgumentError } from 'commander';

/** Parses a positive number of seconds for the option `flagName`. */
export function seconds(flagName: string): (raw: string) => number {
  return (raw) => {
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${flagName} takes a positive number of seconds, not ${JSON.stringify(raw)}`);
    return n;
  };
}

export function portNumber(raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError(`a port is a whole number from 0 to 65535, not ${JSON.stringify(raw)}`);
  return n;
}

/** Parses a whole number of at least 1 for the option `flagName`, e.g. `--parallel`. */
export function positiveInt(flagName: string): (raw: string) => number {
  return (raw) => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${flagName} takes a whole number of at least 1, not ${JSON.stringify(raw)}`);
    return n;
  };
}
