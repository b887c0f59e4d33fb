import { ZodArray, ZodNullable, ZodObject, ZodOptional, ZodUnion, type z } from 'zod';
import { isRoleDenial, RpcError, StorError } from '../errors.js';
import { notAnApplianceAnswer } from './answer-error.js';
import type { Transport } from '../transport/transport.js';
import type { MethodContract } from './method.js';
import { answerChecks } from './answer-checks.js';
import { CONTRACT, type ItemOf, type MethodName, type ParamsOf, type QueryMethod, type ResultOf } from './index.js';
import { apiKeyContract26 } from './v26_0_0/api-key.js';
import { smbContract26 } from './v26_0_0/smb.js';
import { sharingNfsContract26 } from './v26_0_0/sharing-nfs.js';
import { sharingSmbContract26 } from './v26_0_0/sharing-smb.js';

/**
 * Answers of later releases whose shape 25.10.1's contract refuses: 26's api_key entries carry
 * SCRAM data and no `keyhash` (contract/v26_0_0/api-key.ts); its smb.config no `enable_smb1`. A target's answer is accepted in the
 * shape of any release stor knows, so a mixed fleet runs the same commands; no command reads a
 * field only one release has (`keyhash` is never shown).
 */
const LATER_RESULTS: Partial<Record<MethodName, () => z.ZodType>> = {
  ...Object.fromEntries(
    Object.entries(apiKeyContract26)
      .filter(([name]) => Object.hasOwn(CONTRACT, name))
      .map(([name, entry]) => [name, () => entry.result]),
  ),
  // 26's SMB server record has no enable_smb1 (minimum_protocol instead): `share smb create
  // --dry-run` reads only aapl_extensions, which both have.
  'smb.config': () => smbContract26['smb.config'].result,
};

/**
 * Answers of 26.0 that hold all of 25.10.1's fields and more: a share's `dataset`, `relative_path`
 * and `tier` (contract/v26_0_0/sharing-*.ts). Checked in 26's shape first, so that `stor share list
 * --json` gives the entries as the target answers them; a 25.10.1 answer fails that and is checked
 * in its own.
 */
const RICHER_LATER: Partial<Record<MethodName, () => z.ZodType>> = {
  'sharing.nfs.query': () => sharingNfsContract26['sharing.nfs.query'].result,
  'sharing.smb.query': () => sharingSmbContract26['sharing.smb.query'].result,
};

/**
 * The typed client: every command reaches the appliance through these, never through a bare
 * `Transport.call` with a hand-written type. Answers are checked against the contract, so a field
 * a command reads that is missing or of the wrong type becomes a clear MALFORMED_ANSWER naming the
 * method and the field, never a TypeError further on; fields the contract does not know are dropped.
 */
export async function call<M extends MethodName>(
  t: Pick<Transport, 'call'>,
  method: M,
  params?: ParamsOf<M>,
): Promise<ResultOf<M>> {
  return checkedCall(t, method, (params ?? []) as readonly unknown[]);
}

/**
 * `call` for a command that reads the answer's fields by name and never shows it whole (`whoami`,
 * the emulator's settings). The embedded appliance's answer is the in-process emulator's: its
 * handlers answer in the contract's types (core/appliance/method.ts `implement`), the suite checks
 * every answer against the contract at run time (STOR_CHECK_RESULTS=1, rpc/dispatcher.ts
 * `conforming`), and the schemas of the methods asked this way transform no value, so the check
 * would hand back the same fields, less those the contract does not know. It is not made there:
 * building the schemas and checking were ~12 ms of an embedded `whoami`'s ~110 ms of CPU on
 * Node 24 (bench/HISTORY.md, "the embedded start-up, eighth round"). Any other target's answer is
 * checked as `call` checks it.
 */
export async function callForFields<M extends FieldsMethod>(
  t: Pick<Transport, 'call' | 'target'>,
  method: M,
): Promise<ResultOf<M>> {
  if (t.target.kind !== 'embedded') return call(t, method);
  return t.call<ResultOf<M>>(method, []).catch((err: unknown) => {
    throw withNeededRoles(err, method);
  });
}

/** The methods `callForFields` takes: no params, and answers whose schemas transform nothing (test/core/contract/client-fields.test.ts). */
export const FIELDS_METHODS = ['auth.me', 'stor.emulation'] as const satisfies readonly MethodName[];
type FieldsMethod = (typeof FIELDS_METHODS)[number];

/**
 * Builds the schemas `call` will check the answers of `methods` with (contract/method.ts builds
 * each on first use), for a command to do so while it waits anyway: a remote login, the slow
 * check of its key, is under way before a read command asks for its transport (the head start,
 * src/commands/startup/early-target.ts), and the answers then need only be parsed.
 */
export function prepareAnswers(...methods: MethodName[]): void {
  for (const method of methods) {
    RICHER_LATER[method]?.();
    void CONTRACT[method].result;
  }
}

/** The call and the check of its answer, for params already laid out (queryItems'). */
async function checkedCall<M extends MethodName>(
  t: Pick<Transport, 'call'>,
  method: M,
  params: readonly unknown[],
): Promise<ResultOf<M>> {
  const answer = await t.call(method, params).catch((err: unknown) => {
    throw withNeededRoles(err, method);
  });
  const how = parseContextFor(answer);
  const richer = RICHER_LATER[method]?.().safeParse(answer, how);
  if (richer?.success) return richer.data as ResultOf<M>;
  const parsed = (CONTRACT[method].result as z.ZodType).safeParse(answer, how);
  if (parsed.success) return parsed.data as ResultOf<M>;
  const later = LATER_RESULTS[method]?.().safeParse(answer, how);
  if (later?.success) return later.data as ResultOf<M>;
  throw malformedAnswer(method, answer, parsed.error.issues[0]!);
}

/**
 * zod's first parse with an object schema writes and compiles a parser for it (`new Function`, its
 * "fastpass"), which no code cache keeps: for the one or two answers most commands check, that
 * costs far more than it saves (the answers of a cold remote `whoami` cost ~10 ms of it on Node 24).
 * A list of many entries parses each with the same schema, where the compiled parser pays.
 */
const COMPILE_FROM_ITEMS = 64;
const NOT_COMPILED = { jitless: true } as const;
const parseContextFor = (answer: unknown) =>
  answerChecks.compile || (Array.isArray(answer) && answer.length >= COMPILE_FROM_ITEMS) ? undefined : NOT_COMPILED;

/** Entries of a query method with the fields a command needs present: absent ones are malformed. */
export type Needed<M extends QueryMethod, K extends keyof ItemOf<M>> = ItemOf<M> & {
  [F in K]-?: Exclude<ItemOf<M>[F], undefined>;
};

/**
 * `*.query` as a list: 25.10.1 answers a list, one item (`get`) or a count (`count`), with every
 * field optional (`select`); a command names the fields it reads and gets them typed as present.
 * `leading` are the params before filters and options (`filesystem.listdir` takes a path first).
 */
export async function queryItems<M extends QueryMethod, K extends keyof ItemOf<M> & string>(
  t: Pick<Transport, 'call'>,
  method: M,
  need: readonly K[],
  filters: unknown[] = [],
  options: Record<string, unknown> = {},
  leading: readonly unknown[] = [],
): Promise<Needed<M, K>[]> {
  const answer = await checkedCall(t, method, [...leading, filters, options]);
  if (!Array.isArray(answer))
    throw malformedAnswer(method, answer, { code: 'invalid_type', expected: 'array', path: [] });
  answer.forEach((item: Record<string, unknown>, i) => {
    const missing = need.find((k) => item[k] === undefined);
    if (missing !== undefined)
      throw malformedAnswer(method, answer, {
        code: 'invalid_type',
        expected: itemFieldType(method, missing),
        path: [i, missing],
      });
  });
  return answer as Needed<M, K>[];
}

/** The zod type name of a field of a query method's items (`string`, `int`, …), for messages. */
function itemFieldType(method: QueryMethod, field: string): string {
  // query_result(Entry): a union whose first member is the list of items (contract/method.ts).
  const result: z.ZodType = CONTRACT[method].result;
  const list = result instanceof ZodUnion ? result.options[0] : undefined;
  const item = list instanceof ZodArray ? list.element : undefined;
  let schema = item instanceof ZodObject ? (item.shape[field] as z.ZodType | undefined) : undefined;
  while (schema instanceof ZodOptional || schema instanceof ZodNullable) schema = schema.unwrap() as z.ZodType;
  return schema?.def.type ?? 'value';
}

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'list';
  return typeof v === 'object' ? 'object' : typeof v;
}

/**
 * What a complaint about an answer says: where (`path`) and, for a wrong type, what was expected.
 * A zod issue is one; so is a complaint made without zod (a list item missing a field a command needs).
 */
export type AnswerIssue = Pick<z.core.$ZodIssue, 'path'> &
  ({ code: 'invalid_type'; expected: string } | { code: Exclude<z.core.$ZodIssue['code'], 'invalid_type'> });

function expectedOf(issue: AnswerIssue): string {
  if (issue.code !== 'invalid_type') return 'value of another shape';
  const names: Record<string, string> = {
    array: 'list',
    object: 'object',
    string: 'string',
    number: 'number',
    int: 'integer',
    boolean: 'boolean',
  };
  return article(names[issue.expected] ?? issue.expected);
}

export function malformedAnswer(method: string, answer: unknown, issue: AnswerIssue): StorError {
  const path = [...issue.path];
  // A list answer: name the item, then the field inside it.
  const item = Array.isArray(answer) && typeof path[0] === 'number' ? (path.shift() as number) : undefined;
  let found: unknown = item === undefined ? answer : (answer as unknown[])[item];
  for (const key of path)
    found =
      found !== null && typeof found === 'object'
        ? (found as Record<PropertyKey, unknown>)[key as PropertyKey]
        : undefined;
  const where = item === undefined ? '' : ` in item ${item}`;
  const expected = expectedOf(issue);
  const field = path.map(String).join('.');
  const what =
    field === ''
      ? `is not ${expected} (got ${typeOf(found)})`
      : found === undefined
        ? `has no "${field}" (${expected})`
        : `has "${field}" as ${article(typeOf(found))} where ${expected} was expected`;
  return notAnApplianceAnswer(method, `the appliance's answer to ${method} ${what}${where}`);
}

/**
 * A role denial of a call of `method` (the dispatcher's `[EACCES] Not authorized`, which names
 * no role) with the roles the contract's `access` says the method needs, for the hint to name:
 * 25.10.1's contract, or the target release's when the caller knows it (`stor call`).
 */
export function withNeededRoles(err: unknown, method: string, contract?: ReadonlyMap<string, MethodContract>): unknown {
  const access = contract
    ? contract.get(method)?.access
    : Object.hasOwn(CONTRACT, method)
      ? CONTRACT[method as MethodName].access
      : undefined;
  if (err instanceof RpcError && isRoleDenial(err) && access?.kind === 'roles') err.neededRoles = access.roles;
  return err;
}
