import { z } from 'zod';

/** GroupEntry (`MW/api/v25_10_1/group.py`). */
export const groupEntry = z.object({
  id: z.int(),
  gid: z.int(),
  name: z.string(),
  builtin: z.boolean(),
  sudo_commands: z.array(z.string()),
  sudo_commands_nopasswd: z.array(z.string()),
  smb: z.boolean(),
  userns_idmap: z.union([z.literal('DIRECT'), z.int(), z.null()]),
  group: z.string(),
  local: z.boolean(),
  sid: z.string().nullable(),
  roles: z.array(z.string()),
  users: z.array(z.int()),
  immutable: z.boolean(),
});
