/**
 * Positional parameters, validated the way 25.10.1 validates them (pydantic, strict, extra="forbid";
 * MW/api/base/model.py:150-152, MW/api/base/handler/accept.py:70-84): no coercion, error attributes
 * start with the argument's field name, and the messages are pydantic's, so clients that parse
 * `extra` triples see what a real appliance sends.
 */
import type { z } from 'zod';
import type { ParamSpec, ParamValues } from '../contract/method.js';
import { ERRNO, rpcErrors, type ValidationTriple } from '../errors.js';
import { isPydanticTypeMessage } from '../contract/pydantic-model.js';

function typeMessage(expected: string): string {
  switch (expected) {
    case 'int':
    case 'number':
      return 'Input should be a valid integer';
    case 'string':
      return 'Input should be a valid string';
    case 'boolean':
      return 'Input should be a valid boolean';
    case 'array':
      return 'Input should be a valid list';
    case 'object':
    case 'record':
      return 'Input should be a valid dictionary';
    case 'null':
      return 'Input should be None';
    default:
      return `Input should be a valid ${expected}`;
  }
}

function literalList(values: readonly unknown[]): string {
  // Python's repr, as pydantic prints it: None, True, False.
  const quoted = values.map((v) =>
    typeof v === 'string'
      ? `'${v}'`
      : v === null
        ? 'None'
        : typeof v === 'boolean'
          ? v
            ? 'True'
            : 'False'
          : String(v),
  );
  return quoted.length <= 1 ? (quoted[0] ?? '') : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}

/** One error as pydantic's `e.errors()` has it: its location, one part a step, and its `msg`. */
type LocatedError = [loc: string[], message: string];

/** One zod issue as pydantic would phrase it; `input` is the value it is about (a union member's issue has its union's). */
function issueTriples(prefix: string[], issue: z.core.$ZodIssue, input: unknown = issue.input): LocatedError[] {
  const path = [...prefix, ...issue.path.map(String)].filter((p) => p !== '');
  const triple = (message: string, at = path): LocatedError => [at, message];
  switch (issue.code) {
    case 'invalid_type':
      if (input === undefined) return [triple('Field required')];
      return [triple(isPydanticTypeMessage(issue.message) ? issue.message : typeMessage(issue.expected))];
    case 'unrecognized_keys':
      return issue.keys.map((k) => triple('Extra inputs are not permitted', [...path, k]));
    case 'too_small':
      if (issue.origin === 'string')
        return [
          triple(`String should have at least ${issue.minimum} character${Number(issue.minimum) === 1 ? '' : 's'}`),
        ];
      if (issue.origin === 'array')
        return [
          triple(
            `List should have at least ${issue.minimum} item${Number(issue.minimum) === 1 ? '' : 's'} after validation`,
          ),
        ];
      return [triple(`Input should be greater than${issue.inclusive ? ' or equal to' : ''} ${issue.minimum}`)];
    case 'too_big':
      if (issue.origin === 'string') return [triple(`String should have at most ${issue.maximum} characters`)];
      if (issue.origin === 'array') return [triple(`List should have at most ${issue.maximum} items after validation`)];
      return [triple(`Input should be less than${issue.inclusive ? ' or equal to' : ''} ${issue.maximum}`)];
    case 'invalid_value':
      return [triple(`Input should be ${literalList(issue.values)}`)];
    case 'invalid_union': {
      // A discriminated union with no member for the tag: missing tag, or pydantic's
      // `union_tag_invalid`, located at the union itself (MW/api/base/handler/accept.py:74-82).
      const tagged = issue as typeof issue & { discriminator?: string; options?: unknown[] };
      if (tagged.discriminator !== undefined && issue.errors.length === 0) {
        const tag =
          input !== null && typeof input === 'object'
            ? (input as Record<string, unknown>)[tagged.discriminator]
            : undefined;
        if (tag === undefined) return [triple('Field required')];
        const expected = (tagged.options ?? []).map((o) => `'${String(o)}'`).join(', ');
        const unionAt = [...prefix, ...issue.path.slice(0, -1).map(String)].filter((p) => p !== '');
        return [
          triple(
            `Input tag '${String(tag)}' found using '${tagged.discriminator}' does not match any of the expected tags: ${expected}`,
            unionAt,
          ),
        ];
      }
      // pydantic reports a failed union per member; the first member's complaint is the useful one.
      const first = issue.errors[0]?.[0];
      return first ? issueTriples(path, first, input) : [triple('Input is invalid')];
    }
    case 'invalid_format':
      // A bare `.regex()` is pydantic's `pattern=`; one with a message of its own is a custom validator.
      if (issue.format === 'regex' && issue.message.startsWith('Invalid string: must match pattern')) {
        return [
          triple(
            `String should match pattern '${((issue as { pattern?: string }).pattern ?? '').replace(/^\/(.*)\/[a-z]*$/, '$1')}'`,
          ),
        ];
      }
      return [triple(`Value error, ${issue.message}`)];
    case 'custom':
      // A PydanticCustomError (e.g. EmailStr) has its own wording, without the ValueError prefix.
      return [triple(issue.params?.verbatim ? issue.message : `Value error, ${issue.message}`)];
    default:
      return [triple(issue.message)];
  }
}

/**
 * pydantic names the member of a discriminated union by its tag in error locations
 * (`login_data.API_KEY_PLAIN.api_key`, MW/api/base/handler/accept.py:74-82); zod leaves it out.
 * Only a union at the top of a parameter is named so; the emulator has no deeper ones.
 */
function memberPrefix(spec: ParamSpec, raw: unknown): string[] {
  const def = (spec.schema as { _zod: { def: { discriminator?: string } } })._zod.def;
  if (def.discriminator === undefined || raw === null || typeof raw !== 'object') return [spec.name];
  const tag = (raw as Record<string, unknown>)[def.discriminator];
  const options =
    (spec.schema as { options?: { shape: Record<string, { _zod: { values?: Set<unknown> } }> }[] }).options ?? [];
  const known = options.some((o) => o.shape[def.discriminator!]?._zod.values?.has(tag));
  return known ? [spec.name, String(tag)] : [spec.name];
}

/**
 * The errors as ValidationErrors, located as the release's validate_model locates them. 25.10.x
 * joins each location (TS-25.10.1 MW/api/base/handler/accept.py:70-84). 26.0 sets aside every
 * error whose location ends in a union member's tag with `[` or `(` in it (`literal['INHERIT']`,
 * `function-after[validate_unix_perm(), str]`; not `int`, `constrained-int` or a model's name),
 * then adds, after the others, one error per union: at the union's own location, its members'
 * messages joined by " or " in the order they came (stable/26 MW/api/base/handler/accept.py:112-133,
 * the same at TS-26.0.0-BETA.3).
 */
function validationTriples(errors: readonly LocatedError[], joinUnionErrors: boolean): ValidationTriple[] {
  const triples: ValidationTriple[] = [];
  const unions = new Map<string, string[]>();
  for (const [loc, message] of errors) {
    const last = loc.at(-1);
    if (joinUnionErrors && last !== undefined && (last.includes('[') || last.includes('('))) {
      const at = loc.slice(0, -1).join('.');
      unions.set(at, [...(unions.get(at) ?? []), message]);
      continue;
    }
    triples.push([loc.join('.'), message, ERRNO.EINVAL]);
  }
  for (const [at, messages] of unions) triples.push([at, messages.join(' or '), ERRNO.EINVAL]);
  return triples;
}

/** How the release answering words its validation errors (src/core/releases/release.ts). */
export interface ValidationStyle {
  /** 26.0's validate_model: a union's bracketed members' errors joined under the union. */
  joinUnionErrors: boolean;
}

/**
 * Validates positional params against the specs, fills defaults, and returns the parsed values,
 * typed as the specs' schemas output them. Throws -32602 with every problem found, as
 * ValidationErrors, worded as `style` says (25.10.1's without one).
 *
 * This is where a call's untyped params become a handler's typed arguments, and the one place
 * that asserts it: each value is what the schema at its position parsed (or its default, parsed
 * the same way), which the compiler cannot follow through `map`.
 */
export function validateParams<const P extends readonly ParamSpec[]>(
  specs: P,
  params: readonly unknown[],
  style: ValidationStyle = { joinUnionErrors: false },
): ParamValues<P> {
  if (params.length > specs.length) {
    throw rpcErrors.validation([
      ['', `Too many arguments (expected ${specs.length}, found ${params.length})`, ERRNO.EINVAL],
    ]);
  }
  const errors: LocatedError[] = [];
  const values = specs.map((spec, i) => {
    const raw = i < params.length ? params[i] : spec.default ? spec.default() : undefined;
    if (raw === undefined && !spec.default) {
      errors.push([[spec.name], 'Field required']);
      return undefined;
    }
    const parsed = spec.schema.safeParse(raw, { reportInput: true });
    if (!parsed.success) {
      for (const issue of parsed.error.issues) errors.push(...issueTriples(memberPrefix(spec, raw), issue));
      return undefined;
    }
    return parsed.data;
  });
  if (errors.length > 0) throw rpcErrors.validation(validationTriples(errors, style.joinUnionErrors));
  return values as ParamValues<P>;
}
