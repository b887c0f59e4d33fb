# The minimal Python client of the sessions runbook (bench/sessions.mjs): one process, one
# WebSocket and one login per command, then one call (or, for an upload, a single-use token, the
# POST to /_upload/ and the job's end), its answer printed as JSON. Needs the `websocket` module.
#
#   rpc-call.py URL KEY SOURCE METHOD [PARAMS_JSON]       PARAMS_JSON: a JSON list (default [])
#   rpc-call.py URL KEY SOURCE --upload FILE REMOTE_PATH
#
# SOURCE is the local address to connect from (127.0.0.N on loopback): the appliance allows 20
# logins a minute per client address, and the runbook changes address every 20 commands.
import http.client
import json
import socket
import sys
import urllib.parse
import uuid

import websocket

url, key, source = sys.argv[1], sys.argv[2], sys.argv[3]
u = urllib.parse.urlparse(url)
sock = socket.create_connection((u.hostname, u.port), source_address=(source, 0))
ws = websocket.create_connection(url, socket=sock)
ids = iter(range(1, 1000))


def call(method, params):
    i = next(ids)
    ws.send(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}))
    while True:
        msg = json.loads(ws.recv())
        if msg.get("id") == i:
            if "error" in msg:
                sys.exit(f"{method}: {msg['error']}")
            return msg["result"]


assert call("auth.login_with_api_key", [key]) is True
if sys.argv[4] == "--upload":
    local, remote = sys.argv[5], sys.argv[6]
    token = call("auth.generate_token", [300, {}, False, True])
    boundary = uuid.uuid4().hex
    with open(local, "rb") as f:
        content = f.read()
    data = json.dumps({"method": "filesystem.put", "params": [remote, {}]})
    body = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="data"\r\nContent-Type: application/json\r\n\r\n{data}\r\n'
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="f"\r\nContent-Type: application/octet-stream\r\n\r\n'
    ).encode() + content + f"\r\n--{boundary}--\r\n".encode()
    conn = http.client.HTTPConnection(u.hostname, u.port, source_address=(source, 0))
    conn.request("POST", "/_upload/", body, {"Authorization": f"Token {token}", "Content-Type": f"multipart/form-data; boundary={boundary}"})
    answer = conn.getresponse()
    if answer.status != 200:
        sys.exit(f"upload: HTTP {answer.status} {answer.read()[:200]!r}")
    job = json.loads(answer.read())["job_id"]
    call("core.set_options", [{"legacy_jobs": False}])
    print(json.dumps(call("core.job_wait", [job])))
else:
    print(json.dumps(call(sys.argv[4], json.loads(sys.argv[5]) if len(sys.argv) > 5 else [])))
ws.close()
