import type { Profile } from '../../core/config/profiles.js';
import { askAgent } from '../../core/session/control-client.js';
import { keySha256 } from '../../core/session/key-hash.js';
import { parseEndpoint } from '../../core/transport/endpoint.js';
import type { CommandContext } from '../framework/context.js';
import { describeError } from '../output/describe-error.js';

/**
 * Tells the session agent, when one runs, to close the sessions logged in with `profile`'s key to
 * its URL (`stor logout`, `profile remove`, a `login` that replaces a key): they must not outlive
 * the profile. No agent: nothing, at once. A failure to reach it is a note, never the command's
 * failure: what the command was asked to do is done.
 */
export async function closeSessionsOf(ctx: CommandContext, profile: Pick<Profile, 'url' | 'apiKey'>): Promise<void> {
  try {
    const url = parseEndpoint(profile.url).display;
    const keyHash = keySha256(profile.apiKey);
    // Run inside the agent: its own pool, directly.
    const count = ctx.sessions
      ? await ctx.sessions.close(url, keyHash)
      : await askAgent(ctx.io.env, { op: 'close', url, keySha256: keyHash }, Math.min(ctx.timeoutSeconds, 5)).then(
          (a) => (a?.t === 'closed' ? a.count : 0),
        );
    if (count > 0) ctx.verbose(`stor: closed ${count} session(s) to ${url} in the session agent`);
  } catch (err) {
    ctx.warn(`stor: the session agent's sessions to ${profile.url} could not be closed: ${describeError(err).message}`);
  }
}
