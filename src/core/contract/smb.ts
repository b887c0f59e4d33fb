import * as z from 'zod';
import { nonEmptyStr, once, roles, str } from './method.js';
import { pydanticUnion } from './pydantic-union.js';
import { unixPerm } from './filesystem.js';
import { method, service } from './service.js';
import { sid } from './sharing-smb.js';

// `smb.config` / `smb.update`: SMBService, a ConfigService (role_prefix SHARING_SMB, MW/plugins/smb.py:87-97),
// its record SmbServiceEntry (MW/api/v25_10_1/smb.py:133-211).

/** SMBUnixCharset's values (MW/utils/smb.py:5-92), SmbServiceEntry.unixcharset's Literal. */
const SMB_UNIX_CHARSETS = [
  'UTF-8',
  'GB2312',
  'HZ-GB-2312',
  'CP1361',
  'BIG5',
  'BIG5HKSCS',
  'CP037',
  'CP273',
  'CP424',
  'CP437',
  'CP500',
  'CP775',
  'CP850',
  'CP852',
  'CP855',
  'CP857',
  'CP858',
  'CP860',
  'CP861',
  'CP862',
  'CP863',
  'CP864',
  'CP865',
  'CP866',
  'CP869',
  'CP932',
  'CP949',
  'CP950',
  'CP1026',
  'CP1125',
  'CP1140',
  'CP1250',
  'CP1251',
  'CP1252',
  'CP1253',
  'CP1254',
  'CP1255',
  'CP1256',
  'CP1257',
  'CP1258',
  'EUC_JIS_2004',
  'EUC_JISX0213',
  'EUC_JP',
  'EUC_KR',
  'GB18030',
  'GBK',
  'HZ',
  'ISO2022_JP',
  'ISO2022_JP_1',
  'ISO2022_JP_2',
  'ISO2022_JP_2004',
  'ISO2022_JP_3',
  'ISO2022_JP_EXT',
  'ISO2022_KR',
  'ISO8859_1',
  'ISO8859_2',
  'ISO8859_3',
  'ISO8859_4',
  'ISO8859_5',
  'ISO8859_6',
  'ISO8859_7',
  'ISO8859_8',
  'ISO8859_9',
  'ISO8859_10',
  'ISO8859_11',
  'ISO8859_13',
  'ISO8859_14',
  'ISO8859_15',
  'ISO8859_16',
  'JOHAB',
  'KOI8_R',
  'KZ1048',
  'LATIN_1',
  'MAC_CYRILLIC',
  'MAC_GREEK',
  'MAC_ICELAND',
  'MAC_LATIN2',
  'MAC_ROMAN',
  'MAC_TURKISH',
  'PTCP154',
  'SHIFT_JIS',
  'SHIFT_JIS_2004',
  'SHIFT_JISX0213',
  'TIS_620',
  'UTF_16',
  'UTF_16_BE',
  'UTF_16_LE',
] as const;

/** `validate_netbios_name` / `validate_netbios_domain` (MW/utils/netbios.py:4-70). */
const RESERVED_NETBIOS = new Set([
  'anonymous',
  'authenticated user',
  'batch',
  'builtin',
  'dialup',
  'enterprise',
  'interactive',
  'internet',
  'network',
  'null',
  'proxy',
  'restricted',
  'self',
  'users',
  'world',
  'gateway',
  'gw',
  'tac',
]);
const netbios = (domain: boolean) =>
  str().superRefine((val, ctx) => {
    // Python's `$` also matches before one trailing newline: `\n?$` here (MW/utils/netbios.py:5-6).
    const re = domain
      ? /^(?![0-9]*\n?$)[a-zA-Z0-9.\-_!@#$%^&()'{}~]{1,15}\n?$/
      : /^(?![0-9]*\n?$)[a-zA-Z0-9\-_!@#$%^&()'{}~]{1,15}\n?$/;
    if (!re.test(val)) {
      ctx.addIssue({
        code: 'custom',
        message:
          'Invalid NetBIOS name. NetBIOS names must be between 1 and 15 characters in length and may not contain the following characters: \\/:*?"<>|.',
      });
    } else if (RESERVED_NETBIOS.has(val.toLowerCase())) {
      ctx.addIssue({
        code: 'custom',
        message: `NetBIOS names may not be one of following reserved names: ${[...RESERVED_NETBIOS].join(', ')}`,
      });
    } else if ([...val].length > 15) {
      // NETBIOSNAME_MAX_LEN, after the pattern (MW/utils/netbios.py:56-59): only a trailing newline gets here.
      ctx.addIssue({ code: 'custom', message: 'NetBIOS names may not exceed 15 characters.' });
    }
  });

/** `UnixPerm | Literal['DEFAULT']`: pydantic tags an after-validated member by its function and type. */
const mask = once(() =>
  pydanticUnion({
    'function-after[validate_unix_perm(), str]': unixPerm(),
    "literal['DEFAULT']": z.literal('DEFAULT'),
  }),
);

/** An IPvAnyInterface, answered as its address alone (`normalize_bindips`, MW/api/v25_10_1/smb.py:201-211). */
const ipInterface = once(() =>
  z.string().transform((value, ctx) => {
    const ip = value.split('/')[0]!;
    const v4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/.test(ip);
    const v6 = ip.includes(':') && /^[0-9a-fA-F:.]+$/.test(ip);
    if (!v4 && !v6) {
      ctx.addIssue({
        code: 'custom',
        message: 'value is not a valid IPv4 or IPv6 interface',
        params: { verbatim: true },
      });
      return z.NEVER;
    }
    return ip;
  }),
);

/** SmbServiceEntry's fields as the API takes them (SMBUpdateArgs: all optional, `id` Excluded). */
const updateFields = once(() => ({
  netbiosname: netbios(false),
  netbiosalias: z.array(netbios(false)),
  workgroup: netbios(true),
  description: str(),
  enable_smb1: z.boolean(),
  unixcharset: z.enum(SMB_UNIX_CHARSETS),
  localmaster: z.boolean(),
  syslog: z.boolean(),
  aapl_extensions: z.boolean(),
  admin_group: str().nullable(),
  guest: nonEmptyStr(),
  filemask: mask(),
  dirmask: mask(),
  ntlmv1_auth: z.boolean(),
  multichannel: z.boolean(),
  encryption: z.enum(['DEFAULT', 'NEGOTIATE', 'DESIRED', 'REQUIRED']),
  bindip: z.array(ipInterface()),
  server_sid: sid().nullable(),
  smb_options: str(),
  debug: z.boolean(),
}));

/** SmbServiceEntry as answered (MW/api/v25_10_1/smb.py:133-199). */
export const smbServiceEntry = once(() =>
  z.object({
    id: z.int(),
    netbiosname: z.string(),
    netbiosalias: z.array(z.string()),
    workgroup: z.string(),
    description: z.string(),
    enable_smb1: z.boolean(),
    unixcharset: z.enum(SMB_UNIX_CHARSETS),
    localmaster: z.boolean(),
    syslog: z.boolean(),
    aapl_extensions: z.boolean(),
    admin_group: z.string().nullable(),
    guest: z.string(),
    filemask: z.string(),
    dirmask: z.string(),
    ntlmv1_auth: z.boolean(),
    multichannel: z.boolean(),
    encryption: z.enum(['DEFAULT', 'NEGOTIATE', 'DESIRED', 'REQUIRED']),
    bindip: z.array(z.string()),
    server_sid: z.string().nullable(),
    smb_options: z.string(),
    debug: z.boolean(),
  }),
);
export type SmbServiceEntry = z.input<ReturnType<typeof smbServiceEntry>>;

/** `smb_update` (single_argument_args with ForUpdateMetaclass, MW/api/v25_10_1/smb.py:214-216). */
export const smbUpdateArgs = once(() => z.strictObject(updateFields()).partial());
export type SmbUpdate = z.output<ReturnType<typeof smbUpdateArgs>>;

export const smbContract = service('smb', {
  // role_prefix SHARING_SMB: config reads with _READ, update writes with _WRITE (MW/plugins/smb.py:96).
  config: method({
    summary: 'The SMB server configuration (netbiosname, workgroup, aapl_extensions, …).',
    access: roles('SHARING_SMB_READ'),
    params: () => [],
    result: smbServiceEntry,
  }),
  update: method({
    summary: 'Change the SMB server configuration {netbiosname, workgroup, aapl_extensions, guest, …}.',
    access: roles('SHARING_SMB_WRITE'),
    params: () => [{ name: 'smb_update', schema: smbUpdateArgs() }],
    result: smbServiceEntry,
  }),
});
