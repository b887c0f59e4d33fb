// The reference for JSON-RPC throughput: a bare `ws` server that answers each request with its
// own id and a constant result, doing no work. Prints its port, then serves until killed.
import { WebSocketServer } from 'ws';

const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
wss.on('connection', (ws) =>
  ws.on('message', (data) => {
    const msg = JSON.parse(data.toString());
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: true }));
  }),
);
wss.on('listening', () => console.log(wss.address().port));
