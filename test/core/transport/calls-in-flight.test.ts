import { describe, expect, it } from 'vitest';
import { adminTransport, startTestServer } from '../../helpers/server.js';

describe('calls in flight on one connection', () => {
  it('many calls at once on one connection all get their answers: no more than the appliance takes are in flight', async () => {
    const server = await startTestServer();
    const transport = await adminTransport(server);
    const answers = await Promise.allSettled(
      Array.from({ length: 100 }, () => transport.call('filesystem.stat', ['/mnt/tank'])),
    );
    expect(answers.filter((a) => a.status === 'rejected').map((a) => String(a.reason))).toEqual([]);
  });
});
