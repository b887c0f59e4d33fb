# A minimal Python WebSocket JSON-RPC client, the reference for `stor whoami` against `stor serve`:
# connect, log in with the key, call auth.me, print the username. Needs the `websocket` module.
import json
import sys

import websocket

url, key = sys.argv[1], sys.argv[2]
ws = websocket.create_connection(url)


def call(i, method, params):
    ws.send(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}))
    while True:
        msg = json.loads(ws.recv())
        if msg.get("id") == i:
            if "error" in msg:
                sys.exit(msg["error"]["message"])
            return msg["result"]


assert call(1, "auth.login_with_api_key", [key]) is True
print(call(2, "auth.me", [])["pw_name"])
ws.close()
