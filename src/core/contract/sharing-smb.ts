import * as z from 'zod';
import { crud } from './crud.js';
import { nonEmptyStr, once, roles, str } from './method.js';
import { pydanticTaggedUnion, pydanticUnion } from './pydantic-union.js';
import { method, service } from './service.js';

// `MW/api/v25_10_1/smb.py` (the models) and `MW/plugins/smb.py` SharingSMBService (namespace
// sharing.smb, role_prefix SHARING_SMB: MW/plugins/smb.py:718-725), which validates and stores.

/** SMBSharePurpose (MW/utils/smb.py:95-104), in the order of SmbShareEntry.purpose's Literal (MW/api/v25_10_1/smb.py:602-612). */
export const SMB_PURPOSES = [
  'DEFAULT_SHARE',
  'LEGACY_SHARE',
  'TIMEMACHINE_SHARE',
  'MULTIPROTOCOL_SHARE',
  'TIME_LOCKED_SHARE',
  'PRIVATE_DATASETS_SHARE',
  'EXTERNAL_SHARE',
  'VEEAM_REPOSITORY_SHARE',
  'FCP_SHARE',
] as const;
type SmbPurpose = (typeof SMB_PURPOSES)[number];

/** The enum's own order, which `sharing.smb.presets` walks (MW/utils/smb.py:95-104, MW/plugins/smb.py:1531-1537). */
export const SMB_PURPOSE_ENUM_ORDER: readonly SmbPurpose[] = [
  'DEFAULT_SHARE',
  'LEGACY_SHARE',
  'TIMEMACHINE_SHARE',
  'MULTIPROTOCOL_SHARE',
  'PRIVATE_DATASETS_SHARE',
  'EXTERNAL_SHARE',
  'TIME_LOCKED_SHARE',
  'VEEAM_REPOSITORY_SHARE',
  'FCP_SHARE',
];

/** MW/utils/smb.py:107-110. */
const INVALID_SHARE_NAME_CHARACTERS = ['%', '<', '>', '*', '?', '|', '/', '\\', '+', '=', ';', ':', '"', ',', '[', ']'];
const RESERVED_SHARE_NAMES = new Set(['global', 'printers', 'homes', 'admin$', 'ipc$']);

/**
 * `validate_smb_share_name` (MW/utils/smb.py:114-136): its ValueError's words, or null. The invalid
 * characters are listed in the order the name holds them (Python joins a set, whose order is its hash's).
 */
function smbShareNameProblem(name: string): string | null {
  if (name.length === 0) return 'Share name must contain at least one character';
  // Python's len() counts code points; a character outside the BMP is one, not two UTF-16 units.
  if ([...name].length > 80) return `${name}: share name must not exceed 80 characters in length`;
  if (RESERVED_SHARE_NAMES.has(name.toLowerCase())) return `${name}: share name is reserved.`;
  const invalid = [...new Set([...name].filter((c) => INVALID_SHARE_NAME_CHARACTERS.includes(c)))];
  if (invalid.length > 0) return `${name}: share name contains the following invalid characters: ${invalid.join(', ')}`;
  // unicodedata.category(char) == 'Cc': the C0 and C1 controls and DEL.
  const control = (c: string) => c.charCodeAt(0) < 0x20 || (c.charCodeAt(0) >= 0x7f && c.charCodeAt(0) <= 0x9f);
  if ([...name].some(control)) return `${name}: share name contains unicode control characters`;
  return null;
}

/** SmbShareName (MW/api/base/types/string.py:73): a str (at most 1024) then the validator above. */
const smbShareName = once(() =>
  str().superRefine((s, ctx) => {
    const problem = smbShareNameProblem(s);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
);

/** `validate_smb_path_suffix` (MW/utils/smb.py:139-154). */
const smbNamingSchema = once(() =>
  str().superRefine((suffix, ctx) => {
    const fail = (message: string) => ctx.addIssue({ code: 'custom', message });
    if (!suffix) return fail('Invalid path schema');
    const components = suffix.split('/');
    if (components.length > 2) return fail('Naming schema may not contain more than two components.');
    for (const component of components) {
      if (!component.includes('%')) continue;
      if (!['U', 'G', 'D'].includes(component.split('%')[1]!.slice(0, 1)))
        return fail(`${component}: not a supported naming schema component`);
    }
  }),
);

/** `sid_is_valid` (MW/utils/sid.py:111-142): a well-known SID, or S-1-5-21- and three or four sub-authorities. */
const WELL_KNOWN_SIDS = new Set([
  'S-1-0-0',
  'S-1-1-0',
  'S-1-2-0',
  'S-1-2-1',
  'S-1-3-0',
  'S-1-3-1',
  'S-1-3-4',
  'S-1-5-1',
  'S-1-5-2',
  'S-1-5-3',
  'S-1-5-4',
  'S-1-5-6',
  'S-1-5-7',
  'S-1-5-11',
  'S-1-5-13',
  'S-1-5-14',
  'S-1-5-18',
  'S-1-5-19',
  'S-1-5-20',
  'S-1-5-32-544',
  'S-1-5-32-545',
  'S-1-5-32-546',
]);
function sidIsValid(sid: string): boolean {
  if (WELL_KNOWN_SIDS.has(sid)) return true;
  if (!sid.startsWith('S-1-5-21-')) return false;
  const subauths = sid.slice('S-1-5-21-'.length).split('-');
  if (subauths.length < 3 || subauths.length > 4) return false;
  return subauths.every((s) => /^[0-9]+$/.test(s) && Number(s) >= 1 && Number(s) <= 0xffffffff);
}

/** SID (MW/api/base/types/user.py:61-84): stripped, upper-cased, then asserted; pydantic words an AssertionError so. */
export const sid = once(() =>
  str().transform((value, ctx) => {
    const v = value.trim().toUpperCase();
    if (!sidIsValid(v)) {
      ctx.addIssue({
        code: 'custom',
        message:
          'Assertion failed, SID is malformed. See MS-DTYP Section 2.4 for SID type specifications. Typically SIDs refer to existing objects on the local or remote server and so an appropriate value should be queried prior to submitting to API endpoints.',
        params: { verbatim: true },
      });
      return z.NEVER;
    }
    return v;
  }),
);

/** SmbAuditConfig (MW/api/v25_10_1/smb.py:265-276). */
const auditFields = once(() => ({
  enable: z.boolean().default(false),
  watch_list: z.array(nonEmptyStr()).default([]),
  ignore_list: z.array(nonEmptyStr()).default([]),
}));
export const SMB_AUDIT_DEFAULTS = { enable: false, watch_list: [], ignore_list: [] };

const hostsFields = () => ({
  hostsallow: z.array(str()).default([]),
  hostsdeny: z.array(str()).default([]),
});
const tmQuota = () => z.int().min(0).max(109951162777600).default(0);
const vuid = () => nonEmptyStr().nullable().default(null);

/**
 * The options of each purpose (MW/api/v25_10_1/smb.py:279-587), without their hidden `purpose`
 * (`Field(exclude=True)`: set from the share's purpose, never answered). Defaults as the models'.
 */
const optionFields = once(() => ({
  DEFAULT_SHARE: { aapl_name_mangling: z.boolean().default(false), ...hostsFields() },
  LEGACY_SHARE: {
    recyclebin: z.boolean().default(false),
    path_suffix: smbNamingSchema().nullable().default(null),
    ...hostsFields(),
    guestok: z.boolean().default(false),
    streams: z.boolean().default(true),
    durablehandle: z.boolean().default(true),
    shadowcopy: z.boolean().default(true),
    fsrvp: z.boolean().default(false),
    home: z.boolean().default(false),
    acl: z.boolean().default(true),
    afp: z.boolean().default(false),
    timemachine: z.boolean().default(false),
    timemachine_quota: tmQuota(),
    aapl_name_mangling: z.boolean().default(false),
    vuid: vuid(),
    // LongString: up to 2,048,000 characters (MW/api/base/types/string.py:27).
    auxsmbconf: z.string().max(2048000).default(''),
  },
  TIMEMACHINE_SHARE: {
    timemachine_quota: tmQuota(),
    auto_snapshot: z.boolean().default(false),
    auto_dataset_creation: z.boolean().default(false),
    dataset_naming_schema: smbNamingSchema().nullable().default(null),
    vuid: vuid(),
    ...hostsFields(),
  },
  MULTIPROTOCOL_SHARE: { aapl_name_mangling: z.boolean().default(false), ...hostsFields() },
  TIME_LOCKED_SHARE: {
    grace_period: z
      .int()
      .min(60)
      .max(86400 * 180)
      .default(900),
    aapl_name_mangling: z.boolean().default(false),
    ...hostsFields(),
  },
  PRIVATE_DATASETS_SHARE: {
    dataset_naming_schema: smbNamingSchema().nullable().default(null),
    auto_quota: z.int().min(0).default(0),
    aapl_name_mangling: z.boolean().default(false),
    ...hostsFields(),
  },
  EXTERNAL_SHARE: {
    // ExternalOpt.validate_external_path (MW/api/v25_10_1/smb.py:535-546).
    remote_path: z.array(nonEmptyStr()).superRefine((paths, ctx) => {
      for (const proxy of paths) {
        if (proxy.split('\\').length !== 2 || proxy.startsWith('\\') || proxy.endsWith('\\')) {
          ctx.addIssue({ code: 'custom', message: `${proxy}: DFS proxy must be of format SERVER\\SHARE` });
          return;
        }
      }
    }),
  },
  VEEAM_REPOSITORY_SHARE: { ...hostsFields() },
  // FCPStorageOpt.aapl_name_mangling is Literal[True]: the purpose forces it (MW/api/v25_10_1/smb.py:553).
  FCP_SHARE: { aapl_name_mangling: z.literal(true).default(true), ...hostsFields() },
}));

/** A purpose's options as validated: its hidden `purpose` and the model's fields. */
export type SmbOptionsValue = { purpose: SmbPurpose } & Record<string, unknown>;

/** One purpose's options model as the API takes it: strict, with the hidden `purpose` the share's. */
const smbOptionModel = (purpose: SmbPurpose): z.ZodType<SmbOptionsValue> =>
  z.strictObject({
    purpose: z.literal(purpose),
    ...(optionFields()[purpose] as z.ZodRawShape),
  }) as unknown as z.ZodType<SmbOptionsValue>;

/** SmbShareOptions: `Field(discriminator='purpose')` over the nine models (MW/api/v25_10_1/smb.py:589-595). */
const smbShareOptions = once(
  () =>
    pydanticTaggedUnion(
      'purpose',
      Object.fromEntries(SMB_PURPOSES.map((p) => [p, smbOptionModel(p)])) as Record<
        SmbPurpose,
        z.ZodType<SmbOptionsValue>
      >,
    ) as z.ZodType<SmbOptionsValue>,
);

/** The options as answered: `purpose` excluded, every field present (no defaults in a result). */
const answeredOptions = once(() =>
  z.union(
    // Richest first: the members are open objects, so one whose fields are a subset of another's
    // would match that other's options and drop the rest.
    [...SMB_PURPOSES]
      .sort((a, b) => Object.keys(optionFields()[b]).length - Object.keys(optionFields()[a]).length)
      .map((p) =>
        z.object(
          Object.fromEntries(
            Object.entries(optionFields()[p]).map(([k, s]) => [k, s instanceof z.ZodDefault ? s.unwrap() : s]),
          ) as z.ZodRawShape,
        ),
      ),
  ),
);

/** `path: NonEmptyString | Literal['EXTERNAL']`: a smart union, its members tagged as pydantic tags them. */
const sharePath = once(() =>
  pydanticUnion({ 'constrained-str': nonEmptyStr(), "literal['EXTERNAL']": z.literal('EXTERNAL') }),
);

/** SmbShareEntry (MW/api/v25_10_1/smb.py:598-702), as answered. */
export const smbShareEntry = once(() =>
  z.object({
    id: z.int(),
    purpose: z.enum(SMB_PURPOSES),
    name: z.string(),
    path: z.string(),
    enabled: z.boolean(),
    comment: z.string(),
    readonly: z.boolean(),
    browsable: z.boolean(),
    access_based_share_enumeration: z.boolean(),
    locked: z.boolean().nullable(),
    audit: z.object({ enable: z.boolean(), watch_list: z.array(z.string()), ignore_list: z.array(z.string()) }),
    options: answeredOptions().nullable(),
  }),
);
export type SmbShareEntry = z.input<ReturnType<typeof smbShareEntry>>;

/**
 * What a share made without them has, of the fields an operator sets (SmbShareEntry's defaults,
 * MW/api/v25_10_1/smb.py:598-702): `stor share smb create` compares --exist-ok with them and
 * desired state's export leaves them out. createFields below gives the same (a test holds them equal).
 */
export const SMB_SHARE_DEFAULTS = {
  purpose: 'DEFAULT_SHARE' as SmbPurpose,
  comment: '',
  readonly: false,
  browsable: true,
  access_based_share_enumeration: false,
  enabled: true,
};

/** SmbShareCreate's fields and defaults (id and locked Excluded, MW/api/v25_10_1/smb.py:773-775). */
const createFields = once(() => ({
  purpose: z.enum(SMB_PURPOSES).default('DEFAULT_SHARE'),
  name: smbShareName(),
  path: sharePath(),
  enabled: z.boolean().default(true),
  comment: str().default(''),
  readonly: z.boolean().default(false),
  browsable: z.boolean().default(true),
  access_based_share_enumeration: z.boolean().default(false),
  audit: z.strictObject(auditFields()).default(() => ({ ...SMB_AUDIT_DEFAULTS, watch_list: [], ignore_list: [] })),
  options: smbShareOptions().nullable().default(null),
}));

const LEGACY_SHARE_FIELDS = [
  'path_suffix',
  'home',
  'recyclebin',
  'guestok',
  'hostsallow',
  'hostsdeny',
  'auxsmbconf',
  'acl',
  'durablehandle',
  'streams',
  'timemachine',
  'timemachine_quota',
  'shadowcopy',
  'fsrvp',
  'afp',
];

/**
 * SmbShareEntry.parse_nested with normalize_legacy_fields (MW/api/v25_10_1/smb.py:704-770), the
 * `mode='before'` validator: old field names renamed, the old purposes mapped, and the share's
 * purpose put into `options` for the discriminator. Options without a purpose are refused.
 */
function parseNested(input: unknown, ctx: z.core.$RefinementCtx): unknown {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return input;
  const dataIn = input as Record<string, unknown>;
  let next: Record<string, unknown> = dataIn;
  if ('purpose' in dataIn) {
    next = { ...dataIn };
    if ('ro' in next) {
      next.readonly = next.ro;
      delete next.ro;
    }
    if ('abe' in next) {
      next.access_based_share_enumeration = next.abe;
      delete next.abe;
    }
    delete next.aapl_name_mangling;
    if (next.purpose === 'ENHANCED_TIMEMACHINE' || next.purpose === 'TIMEMACHINE') next.purpose = 'TIMEMACHINE_SHARE';
    else if (next.purpose === 'WORM_DROPBOX') next.purpose = 'TIME_LOCKED_SHARE';
    for (const field of LEGACY_SHARE_FIELDS) delete next[field];
    next.options = {};
  }
  if (!('purpose' in next) && !('options' in next)) return next;
  if (!('options' in next)) {
    ctx.addIssue({ code: 'custom', message: 'You must set `options` if you set `purpose`.' });
    return z.NEVER;
  }
  if (!('purpose' in next)) {
    ctx.addIssue({ code: 'custom', message: 'You must set `purpose` if you set `options`.' });
    return z.NEVER;
  }
  const given = dataIn.options;
  // `data_in.get('options', {}).copy()`: an explicit null has no copy(); pydantic passes that
  // AttributeError on as it is, and the emulator answers the one thing it can: the value refused.
  next.options =
    given === undefined
      ? { purpose: next.purpose }
      : given !== null && typeof given === 'object' && !Array.isArray(given)
        ? { ...(given as object), purpose: next.purpose }
        : given;
  return next;
}

/** What the after-validator reads of a create or an update. */
interface PurposeAndOptions {
  purpose?: SmbPurpose;
  path?: string;
  options?: SmbOptionsValue | null;
}

/**
 * SmbShareCreate.check_purpose_options (MW/api/v25_10_1/smb.py:777-823), the `mode='after'`
 * validator: an external share's path is EXTERNAL; null options get the purpose's defaults.
 */
function checkPurposeOptions<T extends PurposeAndOptions>(value: T, ctx: z.core.$RefinementCtx): T {
  if (value.purpose === 'EXTERNAL_SHARE' && value.path !== 'EXTERNAL') {
    ctx.addIssue({ code: 'custom', message: 'You must set `path` to "EXTERNAL" for external shares.' });
    return z.NEVER;
  }
  if (value.options === null) {
    if (value.purpose === undefined) {
      ctx.addIssue({ code: 'custom', message: 'purpose field is required if options are specified as null' });
      return z.NEVER;
    }
    if (value.purpose === 'EXTERNAL_SHARE') {
      ctx.addIssue({ code: 'custom', message: 'External shares require explicit options configuration' });
      return z.NEVER;
    }
    return { ...value, options: smbOptionModel(value.purpose).parse({ purpose: value.purpose }) } as T;
  }
  return value;
}

/** `data: SmbShareCreate` of sharing.smb.create. */
const smbShareCreate = once(() =>
  z.preprocess(parseNested, z.strictObject(createFields())).transform((v, ctx) => checkPurposeOptions(v, ctx)),
);
export type SmbShareCreate = z.output<ReturnType<typeof smbShareCreate>>;

/** SmbShareUpdate: ForUpdateMetaclass makes every field optional, without its default (MW/api/v25_10_1/smb.py:836-837). */
const updateFields = once(() => ({
  purpose: z.enum(SMB_PURPOSES).optional(),
  name: smbShareName().optional(),
  path: sharePath().optional(),
  enabled: z.boolean().optional(),
  comment: str().optional(),
  readonly: z.boolean().optional(),
  browsable: z.boolean().optional(),
  access_based_share_enumeration: z.boolean().optional(),
  audit: z.strictObject(auditFields()).optional(),
  options: smbShareOptions().nullable().optional(),
}));

const smbShareUpdate = once(() =>
  z.preprocess(parseNested, z.strictObject(updateFields())).transform((v, ctx) => checkPurposeOptions(v, ctx)),
);
export type SmbShareUpdate = z.output<ReturnType<typeof smbShareUpdate>>;

/** SMBShareAclEntry (MW/api/v25_10_1/smb.py:64-97). `ae_who_id.id` is the field's alias. */
const aclEntry = once(() =>
  z
    .strictObject({
      ae_perm: z.enum(['FULL', 'CHANGE', 'READ']),
      ae_type: z.enum(['ALLOWED', 'DENIED']),
      ae_who_sid: sid().nullable().default(null),
      ae_who_id: z
        .strictObject({ id_type: z.enum(['USER', 'GROUP']), id: z.int().min(0).max(2147483647) })
        .nullable()
        .default(null),
      ae_who_str: nonEmptyStr().nullable().default(null),
    })
    .superRefine((e, ctx) => {
      if (e.ae_who_sid === null && e.ae_who_id === null && e.ae_who_str === null)
        ctx.addIssue({
          code: 'custom',
          message:
            'You must set one of the following fields to identify the user or group that this ACL entry applies to: "ae_who_sid", "ae_who_str", or "ae_who_id"',
        });
    }),
);

/** An ACL entry as getacl answers it (MW/plugins/smb.py:1691-1714 fills ae_who_id and ae_who_str). */
const answeredAclEntry = once(() =>
  z.object({
    ae_perm: z.string(),
    ae_type: z.enum(['ALLOWED', 'DENIED']),
    ae_who_sid: z.string().nullable(),
    ae_who_id: z.object({ id_type: z.enum(['USER', 'GROUP', 'BOTH']), id: z.int() }).nullable(),
    ae_who_str: z.string().nullable(),
  }),
);

/** SMBShareAcl as answered (MW/api/v25_10_1/smb.py:100-107). */
const smbShareAcl = once(() => z.object({ share_name: z.string(), share_acl: z.array(answeredAclEntry()) }));
export type SmbShareAcl = z.input<ReturnType<typeof smbShareAcl>>;

/** The share ACL a share without one has: everyone, full control (MW/api/v25_10_1/smb.py:106, MW/plugins/smb_/sharesec.py:101-103). */
export const DEFAULT_SHARE_ACL = [{ ae_who_sid: 'S-1-1-0', ae_perm: 'FULL', ae_type: 'ALLOWED' }] as const;

/** `smb_setacl` (single_argument_args, MW/api/v25_10_1/smb.py:110-112). */
const smbSetacl = once(() =>
  z.strictObject({
    share_name: nonEmptyStr(),
    share_acl: z
      .array(aclEntry())
      .default(() => DEFAULT_SHARE_ACL.map((e) => ({ ...e, ae_who_id: null, ae_who_str: null }))),
  }),
);

const shares = crud(smbShareEntry, () => z.int(), {
  read: roles('SHARING_SMB_READ'),
  write: roles('SHARING_SMB_WRITE'),
});

export const sharingSmbContract = service('sharing.smb', {
  query: shares.query('List SMB shares (filters, options), e.g. [["name", "C=", "docs"]].'),
  get_instance: shares.get_instance('One SMB share by id.'),
  create: shares.create(
    'Create an SMB share {name, path: /mnt/POOL/…, purpose, options, enabled, comment, readonly, browsable, audit}.',
    'data',
    smbShareCreate,
    smbShareEntry,
  ),
  update: shares.update('Update SMB share ID with the fields given.', 'data', smbShareUpdate, smbShareEntry),
  delete: shares.delete('Delete SMB share ID.', () => z.literal(true)),
  // MW/plugins/smb.py:1531-1537.
  presets: method({
    summary: 'The share purposes, each with its verbose name.',
    access: roles('SHARING_SMB_READ'),
    params: () => [],
    result: () => z.record(z.string(), z.record(z.string(), z.unknown())),
  }),
  // MW/plugins/smb.py:1353-1375 (READONLY_ADMIN).
  share_precheck: method({
    summary: 'Whether an SMB share may be made now {name}: null, or why not.',
    access: roles('READONLY_ADMIN'),
    params: () => [
      {
        name: 'smb_share_precheck',
        schema: z.strictObject({ name: smbShareName().nullable().default(null) }),
      },
    ],
    result: () => z.null(),
  }),
  // MW/plugins/smb.py:1651-1714 (SHARING_SMB_READ).
  getacl: method({
    summary: "A share's ACL (SMB access only, not the file system's) {share_name}.",
    access: roles('SHARING_SMB_READ'),
    params: () => [{ name: 'smb_getacl', schema: z.strictObject({ share_name: nonEmptyStr() }) }],
    result: smbShareAcl,
  }),
  // MW/plugins/smb.py:1539-1649 (SHARING_SMB_WRITE).
  setacl: method({
    summary: "Replace a share's ACL {share_name, share_acl: [{ae_who_sid | ae_who_id, ae_perm, ae_type}]}.",
    access: roles('SHARING_SMB_WRITE'),
    params: () => [{ name: 'smb_setacl', schema: smbSetacl() }],
    result: smbShareAcl,
  }),
});
