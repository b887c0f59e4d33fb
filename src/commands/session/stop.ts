import { askAgent } from '../../core/session/control-client.js';
import { keySha256 } from '../../core/session/key-hash.js';
import type { CommandContext } from '../framework/context.js';
import { defineCommand, flag } from '../framework/declare.js';
import { type CommandResult, recordResult } from '../output/render.js';

/** `stor session stop --json` */
export interface SessionStopResult {
  /** Whether a session agent was running. */
  agent: boolean;
  /** Sessions closed (of the selected target); null with --all, which ends the agent and all of them. */
  closed: number | null;
  /** Whether the agent was told to end (--all). */
  stopped: boolean;
}

export async function sessionStop(ctx: CommandContext, all: boolean): Promise<CommandResult<SessionStopResult>> {
  let data: SessionStopResult;
  if (all) {
    const answer = await askAgent(ctx.io.env, { op: 'stop' }, ctx.timeoutSeconds);
    data = { agent: answer !== undefined, closed: null, stopped: answer?.t === 'stopping' };
  } else {
    const spec = await ctx.target();
    if (spec.kind === 'embedded') {
      // The embedded appliance is opened per command, never pooled.
      const answer = await askAgent(ctx.io.env, { op: 'ping' }, ctx.timeoutSeconds);
      data = { agent: answer !== undefined, closed: 0, stopped: false };
    } else {
      const answer = await askAgent(
        ctx.io.env,
        { op: 'close', url: spec.endpoint.display, keySha256: keySha256(spec.apiKey) },
        ctx.timeoutSeconds,
      );
      data = { agent: answer !== undefined, closed: answer?.t === 'closed' ? answer.count : 0, stopped: false };
    }
  }
  if (!data.agent) ctx.note('stor: no session agent is running');
  return recordResult(data, {
    fields: all ? [['agent stopped', data.stopped]] : [['sessions closed', data.closed]],
  });
}

export const sessionStopCommand = defineCommand({
  effect: 'change',
  summary:
    'close the sessions of the selected target (--url, --profile or the current profile); --all ends the session agent',
  options: { all: flag('end the session agent, and with it every session') },
  examples: ['stor session stop', 'stor --profile nas1 session stop', 'stor session stop --all'],
  run: (ctx, _args, { all }) => sessionStop(ctx, all),
});
