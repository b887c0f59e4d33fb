import * as z from 'zod';

/**
 * Who may call a method (MW/main.py:873-924, MW/api/base/decorator.py:124-135, MW/role.py:354-380):
 * - `public`: no login needed (login calls, `core.ping`); rate-limited on the network when anonymous.
 * - `authenticated`: any logged-in session (`auth.me`, `privilege.roles`, `core.get_jobs`).
 * - `roles`: FULL_ADMIN, or one of these roles among the session's effective roles;
 *   an empty list means FULL_ADMIN only.
 */
export type Access =
  { kind: 'public'; rateLimited: boolean } | { kind: 'authenticated' } | { kind: 'roles'; roles: readonly string[] };

export const PUBLIC: Access = { kind: 'public', rateLimited: true };
export const PUBLIC_UNLIMITED: Access = { kind: 'public', rateLimited: false };
export const AUTHENTICATED: Access = { kind: 'authenticated' };
export const roles = (...names: string[]): Access => ({ kind: 'roles', roles: names });

/** One positional parameter, as the appliance's Args model names and types it. */
export interface ParamSpec {
  /** The argument's field name in the appliance's Args model, e.g. `privilege_create`. */
  name: string;
  schema: z.ZodType;
  /** Present when the argument may be omitted. */
  default?: () => unknown;
  /**
   * The default is pydantic's `default_factory` (MW/api/base/model.py `single_argument_args` on 26.0):
   * the JSON schema says no `default`, the argument is still not required.
   */
  factory?: true;
}

/** A string as the appliance models it: at most 1024 characters unless said otherwise. */
export const str = (max = 1024) => z.string().max(max);
export const nonEmptyStr = (max = 1024) => z.string().min(1).max(max);

/**
 * One method of the 25.10.1 API as both sides see it: what it takes, what it answers, who may
 * call it. The emulator validates calls and (in tests) its own answers against this; the client
 * types its calls and checks the answers it reads with it. No behaviour lives here.
 */
export interface MethodContract<
  P extends readonly ParamSpec[] = readonly ParamSpec[],
  R extends z.ZodType = z.ZodType,
> {
  name: string;
  /** One line for `stor call --help` and error messages. */
  summary: string;
  access: Access;
  params: P;
  /**
   * The result as 25.10.1 models it (`MW/api/v25_10_1/*.py` `...Result`). Objects are `z.object`
   * (unknown keys tolerated and dropped, so a newer appliance's extra fields never break a
   * client); no transforms or defaults, so a parsed answer equals the answer minus unknown keys,
   * which is how tests catch the emulator sending a field 25.10.1 does not.
   */
  result: R;
  /**
   * A job method: the call creates a job in `core.get_jobs`. With the connection's default
   * `legacy_jobs` the job id is answered at once; otherwise the answer waits for the job's result,
   * which is what `result` describes.
   */
  job?: boolean;
  /**
   * The job's pipe (`@job(pipes=[…])`, MW/service/decorators.py:69-163): `input` takes the file's
   * bytes (uploads), `output` writes them (downloads). `core.get_methods` says `uploadable` /
   * `downloadable` from it (MW/service/core_service.py:375-376).
   */
  pipe?: 'input' | 'output';
  /**
   * The method receives the caller's connection (`pass_app`, MW/service/decorators.py:185-194, or
   * `api_method(pass_app=True)`, MW/api/base/decorator.py:85-91): `rest` when it may also be
   * called over REST (`rest=True` / `pass_app_rest=True`), `ws` when it needs a WebSocket.
   * `core.get_methods` says `pass_application` and `require_websocket` from it
   * (MW/service/core_service.py:372-373).
   */
  app?: 'ws' | 'rest';
  /**
   * A later release's entry only (`contract/v26_0_0/`): turns the answer of the handler written
   * for 25.10.1's models into this release's, as MW's version adapter fills a field an older model
   * lacks with its default (MW/api/base/handler/version.py). Absent: the answers are the same.
   */
  fromBase?: (answer: unknown) => unknown;
}

/** A contract as written: params and result are built on first use (see `defineContract`). */
export interface ContractSpec<P extends readonly ParamSpec[], R extends z.ZodType> extends Omit<
  MethodContract<P, R>,
  'params' | 'result'
> {
  params: () => P;
  result: () => R;
}

/**
 * A method's contract, its schemas built when first read. Building every zod schema of the
 * contract costs tens of milliseconds, and a command process uses a handful of methods: building
 * them all at load would be most of what `stor whoami` spends before its first call.
 */
export function defineContract<const P extends readonly ParamSpec[], R extends z.ZodType>(
  spec: ContractSpec<P, R>,
): MethodContract<P, R> {
  const { params, result, ...rest } = spec;
  let builtParams: P | undefined;
  let builtResult: R | undefined;
  return {
    ...rest,
    get params() {
      return (builtParams ??= params());
    },
    get result() {
      return (builtResult ??= result());
    },
  };
}

/** The values a method's handler receives, after validation and defaults. */
export type ParamValues<P extends readonly ParamSpec[]> = {
  -readonly [K in keyof P]: P[K] extends { schema: infer S extends z.ZodType } ? z.output<S> : never;
};

/**
 * `query_result(Entry)` of 25.10.1 (`MW/api/base/model.py:307-324`): a list of items, one item
 * (`get: true`) or a count (`count: true`); items have every field optional, since `select` may
 * ask for any subset.
 */
export function queryResult<Shape extends z.ZodRawShape>(entry: z.ZodObject<Shape>) {
  const item = entry.partial();
  return z.union([z.array(item), item, z.int()]);
}

/** A value built on first use and kept: how the contract's shared schemas defer their cost. */
export function once<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= build());
}

/**
 * `entry` with `fields` placed right after its field `after`, where a later release's model
 * declares them: the model's field order is its answer's key order (rpc/model-order.ts), which
 * zod's `extend` would not keep (it adds at the end). The object's catchall is kept.
 */
export function extendAfter<Shape extends z.ZodRawShape, const Fields extends z.ZodRawShape>(
  entry: z.ZodObject<Shape>,
  after: keyof Shape & string,
  fields: Fields,
): z.ZodObject<Omit<Shape, keyof Fields> & Fields> {
  const shape: Record<string, z.core.$ZodType> = {};
  for (const [key, schema] of Object.entries(entry.shape as Record<string, z.core.$ZodType>)) {
    if (key in fields) continue;
    shape[key] = schema;
    if (key === after) Object.assign(shape, fields);
  }
  const catchall = entry.def.catchall;
  const out = z.object(shape);
  return (catchall ? out.catchall(catchall) : out) as unknown as z.ZodObject<Omit<Shape, keyof Fields> & Fields>;
}
