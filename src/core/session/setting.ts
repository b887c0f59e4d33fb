/*
 * Whether a command may use the session agent: `--no-session` on its command line (read by
 * src/commands/framework/command-line.ts), else `STOR_SESSION` (off, 0, false, no turn it off; on, 1,
 * true, yes or unset leave it on). Imported by the first stage: no dependencies.
 */

const OFF = new Set(['off', '0', 'false', 'no']);
const ON = new Set(['on', '1', 'true', 'yes', '']);

/** `STOR_SESSION`'s meaning: on, off, or not one of the words above (a usage error, `BAD_SESSION_SETTING`). */
export function sessionSetting(value: string | undefined): 'on' | 'off' | 'invalid' {
  if (value === undefined) return 'on';
  const v = value.trim().toLowerCase();
  if (OFF.has(v)) return 'off';
  if (ON.has(v)) return 'on';
  return 'invalid';
}

/** A yes/no variable read as `STOR_SESSION` is (the same words, any case): unset or empty is neither. */
export function switchSetting(value: string | undefined): 'on' | 'off' | 'unset' | 'invalid' {
  if (value === undefined || value.trim() === '') return 'unset';
  return sessionSetting(value);
}
