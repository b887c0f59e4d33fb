import { WebSocket } from 'ws';

type Entry = Record<string, unknown>;

/**
 * A raw JSON-RPC 2.0 connection to a `stor serve` WebSocket: calls answered by id; notifications
 * collected in `notes`, and each handed to the `onNote` listeners as it arrives.
 */
export async function connectJsonRpc(url: string) {
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();
  const notes: Entry[] = [];
  const listeners: ((note: Entry) => void)[] = [];
  ws.on('message', (raw: Buffer) => {
    const msg = JSON.parse(raw.toString()) as Entry;
    if (msg.id === undefined) {
      notes.push(msg.params as Entry);
      for (const listener of listeners) listener(msg.params as Entry);
    }
    const waiter = pending.get(msg.id as number);
    if (!waiter) return;
    pending.delete(msg.id as number);
    if (msg.error) waiter.reject(msg.error);
    else waiter.resolve(msg.result);
  });
  // A connection cut (the server killed) fails what still waits for an answer.
  ws.on('close', () => {
    for (const waiter of pending.values()) waiter.reject(new Error('the connection closed'));
    pending.clear();
  });
  let next = 1;
  const call = <T = unknown>(method: string, ...params: unknown[]) =>
    new Promise<T>((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  return {
    call,
    notes,
    onNote: (listener: (note: Entry) => void) => listeners.push(listener),
    close: () => ws.close(),
  };
}
