import { StorError } from '../../core/errors.js';
import { E } from '../../core/error-catalogue.js';

const SPECIAL_BITS = 0o7000;

/**
 * `--mode`: decimal as the appliance takes it (420), or octal as operators write it (0644, 0o644).
 * A decimal above 511 (0o777) is refused: it is nearly always an octal typed without its 0 (644
 * would set 0o1204, sticky and all), and the setuid/setgid/sticky bits are set only when written
 * out in octal. 25.10.1 applies whatever mode it is given (`os.chmod`, MW/plugins/filesystem.py
 * put), special bits included, so those get a warning.
 */
export function parseMode(text: string, name = '--mode'): { mode: number; warning?: string } {
  // Messages name what was given (`--mode 644`, `MODE 644`); hints show what to type (`--mode 0644`, `0644`).
  const named = (v: string) => `${name} ${v}`;
  const as = (v: string) => (name.startsWith('--') ? named(v) : v);
  let mode: number;
  const octalForm = /^0o[0-7]{1,4}$/i.test(text) ? text.slice(2) : /^0[0-7]{1,4}$/.test(text) ? text : undefined;
  if (octalForm !== undefined) mode = parseInt(octalForm, 8);
  else if (/^[1-9][0-9]{0,3}$/.test(text)) {
    mode = parseInt(text, 10);
    if (mode > 0o777) {
      const asOctal = /^[0-7]+$/.test(text) ? parseInt(text, 8) : undefined;
      throw new StorError(
        E.BAD_MODE,
        `${named(text)} in decimal is more than 511 (0777): special bits need explicit octal`,
        {
          hint:
            asOctal !== undefined && asOctal <= 0o7777
              ? `for octal ${text} write ${as(`0${text}`)} (= ${asOctal} in decimal)`
              : `write the mode in octal, e.g. ${as('0644')} (= 420) or ${as('04755')} for setuid`,
        },
      );
    }
  } else if (text === '0') mode = 0;
  else {
    throw new StorError(
      E.BAD_MODE,
      `${name} takes permission bits in decimal (420) or octal (0644, 0o644), not ${JSON.stringify(text)}`,
    );
  }
  if (mode === 0)
    return {
      mode,
      warning: `${named('0')} is ignored by the appliance (25.10.1 applies a mode only when it is not 0); the file keeps its default mode`,
    };
  if (mode & SPECIAL_BITS) {
    return {
      mode,
      warning: `${named(`0${mode.toString(8)}`)} sets ${specialBits(mode)}: the appliance applies it as given`,
    };
  }
  return { mode };
}

function specialBits(mode: number): string {
  const names = [
    [0o4000, 'setuid'],
    [0o2000, 'setgid'],
    [0o1000, 'sticky'],
  ] as const;
  return names
    .filter(([bit]) => mode & bit)
    .map(([, name]) => name)
    .join(' and ');
}
