import type { StorErrorKind } from '../../core/errors.js';

/** The exit codes scripts may rely on (docs/ERRORS.md "Exit codes" is this table). */
export const EXIT = {
  OK: 0,
  FAILED: 1,
  USAGE: 2,
  UNREACHABLE: 3,
  AUTH: 4,
  DENIED: 5,
  CHECK: 6,
  /** `stor plan`: the target differs from the desired-state file (changes pending). */
  DRIFT: 7,
  INTERRUPTED: 130,
  TERMINATED: 143,
} as const;

export const EXIT_FOR_KIND: Record<StorErrorKind, number> = {
  failed: EXIT.FAILED,
  usage: EXIT.USAGE,
  unreachable: EXIT.UNREACHABLE,
  auth: EXIT.AUTH,
  denied: EXIT.DENIED,
  check: EXIT.CHECK,
  interrupted: EXIT.INTERRUPTED,
  internal: EXIT.FAILED,
  terminated: EXIT.TERMINATED,
};
