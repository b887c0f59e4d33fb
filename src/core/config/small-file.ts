import { closeSync, constants, fstatSync, openSync, readSync, type BigIntStats } from 'node:fs';
import { StorError } from '../errors.js';
import { E } from '../error-catalogue.js';

/** What a file named to stor holds, and the most it can weigh: anything larger is not that file. */
export interface SmallFileKind {
  /** As the refusal names it: `an API key file`. */
  what: string;
  bytes: number;
}

/**
 * A key is `<id>-<64 letters and digits>` (MW/plugins/api_key.py:214, `generate_string(string_size=64)`),
 * under 100 bytes; 1 kB leaves room for whitespace around it.
 */
export const KEY_FILE: SmallFileKind = { what: 'an API key file', bytes: 1024 };
/** A CA bundle: the whole system store (/etc/ssl/certs/ca-certificates.crt) is about 220 kB. */
export const CA_FILE: SmallFileKind = { what: 'a CA bundle', bytes: 1024 * 1024 };
/** A TLS certificate chain or private key for `stor serve`. */
export const TLS_FILE: SmallFileKind = { what: 'a TLS certificate or key file', bytes: 1024 * 1024 };
/** A `stor profile import` list: a few hundred bytes per profile. */
export const PROFILE_LIST_FILE: SmallFileKind = { what: 'a profile list', bytes: 1024 * 1024 };
/** A desired-state file (`stor plan/apply -f`): about 100 bytes per object, so tens of thousands of objects. */
export const STATE_FILE: SmallFileKind = { what: 'a desired-state file', bytes: 8 * 1024 * 1024 };

/** The bytes of a small file, and its mode as the open file had it (not as the path has it now). */
export interface SmallFile {
  data: Buffer;
  mode: number;
  /** The open file's status, to the nanosecond: who may trust a file by its identity asks here. */
  stats: BigIntStats;
}

// O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, forever. It changes
// nothing for a regular file. O_NOCTTY: naming a terminal must not make it ours.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

function typeOf(st: BigIntStats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

function refused(path: string, kind: SmallFileKind, why: string): StorError {
  return new StorError(
    E.LOCAL_FILE_REFUSED,
    `${path} ${why}: stor reads ${kind.what} only from a regular file of at most ${kind.bytes} bytes; nothing was read`,
    {
      hint: `name the file itself (a key is under 1 kB; a CA bundle, TLS file or profile list under 1 MB; a desired-state file under 8 MB)`,
    },
  );
}

/**
 * Reads a file the user named (a key, a CA bundle, a profile list) without letting it hang or
 * exhaust stor: the type is checked on the open descriptor (fstat, so a path swapped after the
 * check changes nothing), a FIFO or device is refused before a byte is read, and at most
 * `kind.bytes + 1` bytes are ever read, so a file that grows while read is refused too.
 * Failures to open or read are thrown as they come (callers name them with their own code).
 */
export function readSmallFile(path: string, kind: SmallFileKind): SmallFile {
  const fd = openSync(path, OPEN_FLAGS);
  try {
    const st = fstatSync(fd, { bigint: true });
    if (!st.isFile()) throw refused(path, kind, `is ${typeOf(st)}`);
    if (st.size > BigInt(kind.bytes)) throw refused(path, kind, `holds ${st.size} bytes`);
    // Sized by the cap, not by st.size: /proc files say 0 and a file may grow meanwhile.
    const buf = Buffer.alloc(kind.bytes + 1);
    let length = 0;
    for (;;) {
      const n = readSync(fd, buf, length, buf.length - length, null);
      if (n === 0) break;
      length += n;
      if (length > kind.bytes) throw refused(path, kind, `holds more than ${kind.bytes} bytes`);
    }
    return { data: buf.subarray(0, length), mode: Number(st.mode), stats: st };
  } finally {
    closeSync(fd);
  }
}
