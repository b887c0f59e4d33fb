import { z } from 'zod';

/**
 * The fields of each method's result that the commands read, as 25.10.1 shapes them
 * (MW/api/v25_10_1/*.py). Lenient on purpose: unknown keys are allowed (and dropped), and a field
 * 25.10.1 may omit is optional, so a newer appliance's extra fields or an absent optional field
 * never break a command; a field a command cannot do without is required.
 * Schemas only: this module is loaded by every command that talks to an appliance.
 */

/** EJSON sends a Python set as `{"$set": [...]}` (facts §1.10); a plain list is accepted too. */
const roleSet = z.union([z.object({ $set: z.array(z.string()) }).transform((s) => s.$set), z.array(z.string())]);

export const RESULTS = {
  /** AuthUserInfo (facts §2.2). */
  'auth.me': z.object({
    pw_name: z.string(),
    pw_gecos: z.string().optional(),
    pw_uid: z.number(),
    pw_gid: z.number().nullable().optional(),
    account_attributes: z.array(z.string()).optional(),
    privilege: z.object({ roles: roleSet, web_shell: z.boolean().optional() }),
  }),
  /** Called with `select: ['id', 'gid', 'name']`. */
  'group.query': z.array(z.object({ id: z.number(), gid: z.number(), name: z.string() })),
  /** UserEntry: `group` is the primary group object, `groups` the ids of the others. */
  'user.query': z.array(z.object({ username: z.string(), group: z.object({ bsdgrp_gid: z.number() }).nullable().optional(), groups: z.array(z.number()).optional() })),
} as const;

export type ResultMethod = keyof typeof RESULTS;
export type ResultOf<M extends ResultMethod> = z.output<(typeof RESULTS)[M]>;
