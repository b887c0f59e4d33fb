import { StorError } from '../../core/errors.js';

/**
 * `--mode`: decimal as the appliance takes it (420), or octal as operators write it (0644, 0o644).
 * Returns the permission bits and, for a decimal that is probably a mistyped octal (644, 755),
 * a warning to show.
 */
export function parseMode(text: string): { mode: number; warning?: string } {
  let mode: number;
  if (/^0o[0-7]{1,4}$/i.test(text)) mode = parseInt(text.slice(2), 8);
  else if (/^0[0-7]{1,4}$/.test(text)) mode = parseInt(text, 8);
  else if (/^[1-9][0-9]{0,3}$/.test(text)) mode = parseInt(text, 10);
  else if (text === '0') mode = 0;
  else {
    throw new StorError('usage', 'BAD_MODE', `--mode takes permission bits in decimal (420) or octal (0644, 0o644), not ${JSON.stringify(text)}`);
  }
  if (mode > 0o7777) throw new StorError('usage', 'BAD_MODE', `--mode ${text} is more than 0o7777 (4095)`);
  const looksOctal = /^[1-9][0-7]{2,3}$/.test(text) && mode > 0o777;
  return looksOctal
    ? { mode, warning: `--mode ${text} is read as decimal (octal 0${mode.toString(8)}); write 0${text} if you meant octal` }
    : { mode };
}

export function octal(mode: number, width = 4): string {
  return mode.toString(8).padStart(width, '0');
}
