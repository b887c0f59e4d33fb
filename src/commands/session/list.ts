import { askAgent } from '../../core/session/control-client.js';
import type { CommandContext } from '../framework/context.js';
import { defineCommand } from '../framework/declare.js';
import { type CommandResult, tableResult } from '../output/render.js';
import { shortDuration } from './duration.js';

/** One row of `stor session list --json`. Never a key or token. */
export interface SessionRow {
  target: string;
  /** The appliance's name for the session's user (auth.me), null while unknown. */
  user: string | null;
  age_seconds: number;
  idle_seconds: number;
  calls: number;
  /** Commands running on it now. */
  active: number;
  /** False when its connection was lost; the next command logs in again. */
  connected: boolean;
}

export async function sessionList(ctx: CommandContext): Promise<CommandResult<SessionRow[]>> {
  const answer = await askAgent(ctx.io.env, { op: 'list' }, ctx.timeoutSeconds);
  const sessions = answer?.t === 'sessions' ? answer.sessions : [];
  const data: SessionRow[] = sessions.map((s) => ({
    target: s.target,
    user: s.user ?? null,
    age_seconds: s.ageSeconds,
    idle_seconds: s.idleSeconds,
    calls: s.calls,
    active: s.active,
    connected: s.connected,
  }));
  if (answer === undefined) ctx.note('stor: no session agent is running');
  const empty =
    answer === undefined
      ? 'No session agent is running: the next remote command starts one.'
      : 'The session agent holds no sessions.';
  return tableResult(data, {
    columns: [{ header: 'target', key: true }, { header: 'user', key: true }, 'age', 'idle', 'calls'],
    rows: data.map((s) => [s.target, s.user, shortDuration(s.age_seconds), shortDuration(s.idle_seconds), s.calls]),
    empty,
  });
}

export const sessionListCommand = defineCommand({
  effect: 'read',
  summary: "list the session agent's logged-in connections: target, user, age, idle time, calls served (never a key)",
  examples: ['stor session list', 'stor session list --json'],
  run: (ctx) => sessionList(ctx),
});
