/**
 * A subscriber that does not read its events cannot make the server hold them without end: a
 * `collection_update` goes through the connection's one send, which closes the connection 1008
 * once more than `maxBufferedBytes` are queued unread (src/core/server/websocket.ts), as for
 * answers and job events. The socket is a stand-in whose unread queue the test sets: on a real
 * loopback socket the kernel's buffers (megabytes) would absorb thousands of events first
 * (test/core/server/connections.test.ts measures that case with answers).
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import type { Session } from '../../src/core/appliance/session/session.js';
import { RateLimiter } from '../../src/core/appliance/session/rate-limit.js';
import { Dispatcher } from '../../src/core/rpc/dispatcher.js';
import { DEFAULT_LIMITS } from '../../src/core/server/limits.js';
import { serveConnection } from '../../src/core/server/websocket.js';
import { openTestAppliance } from '../helpers/appliance.js';

class StandInSocket extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  /** What the peer has not read yet, as `ws` counts it. */
  bufferedAmount = 0;
  readonly sent: string[] = [];
  closedWith: [number, string] | null = null;
  send(text: string) {
    this.sent.push(text);
  }
  close(code: number, reason: string) {
    this.closedWith = [code, reason];
    this.readyState = 2;
  }
  terminate() {
    this.readyState = 3;
  }
}

describe('collection_update to a subscriber that does not read', () => {
  it('is sent while the unread queue is under the cap; past it the connection is closed 1008 and nothing more is queued', async () => {
    const t = await openTestAppliance();
    const { appliance } = t;
    let session: Session | undefined;
    const createSession = appliance.createSession.bind(appliance);
    appliance.createSession = (origin) => (session = createSession(origin));
    const ws = new StandInSocket();
    const limits = { ...DEFAULT_LIMITS, maxBufferedBytes: 1024 };
    serveConnection(
      ws as unknown as WebSocket,
      { transport: 'websocket', address: '127.0.0.1', secure: true },
      {
        appliance,
        dispatcher: new Dispatcher(appliance),
        limiter: new RateLimiter(),
        log: () => undefined,
        limits,
      },
    );
    appliance.events.subscribe(session!, 'sub', 'user.query');

    // A user change through the appliance, as any connection's call would make it.
    await t.call(t.admin, 'user.create', {
      username: 'erin',
      full_name: 'erin',
      group_create: true,
      password_disabled: true,
      smb: false,
    });
    expect(ws.sent.map((s) => JSON.parse(s) as { method: string; params: { msg: string } })).toMatchObject([
      { method: 'collection_update', params: { msg: 'added' } },
    ]);

    // The subscriber stops reading: its queue is past the cap.
    ws.bufferedAmount = limits.maxBufferedBytes + 1;
    const [erin] = await t.call<{ id: number }[]>(t.admin, 'user.query', [['username', '=', 'erin']]);
    for (let i = 0; i < 50; i++) await t.call(t.admin, 'user.update', erin!.id, { full_name: `erin ${i}` });
    expect(ws.closedWith).toEqual([1008, `More than ${limits.maxBufferedBytes} bytes of unread output`]);
    // Nothing was queued past the cap, and once closing nothing more is sent.
    expect(ws.sent).toHaveLength(1);
  });
});
