"""Calls that fail, through the official client with py_exceptions on; prints one JSON line per call:
the class of what the client raised and the attributes a caller reads.
Input (stdin, JSON): {"url", "key", "calls": [{"label", "method", "params", "py_exceptions"}]}.

truenas_api_client.Client refuses py_exceptions on any address but a UNIX socket
(truenas_api_client/__init__.py:104-108: it unpickles what the server sends); the connection class
it wraps, JSONRPCClient, takes the option on any address, so that is what runs here."""
import json, sys
from truenas_api_client import ClientException, JSONRPCClient

spec = json.load(sys.stdin)


def described(e):
    out = {'class': f'{type(e).__module__}.{type(e).__name__}', 'str': str(e), 'errno': getattr(e, 'errno', None)}
    for attr in ('errmsg', 'attribute', 'extra', 'filename'):
        if hasattr(e, attr):
            out[attr] = getattr(e, attr)
    if hasattr(e, 'errors') and isinstance(e.errors, list):
        out['errors'] = [[f'{type(v).__module__}.{type(v).__name__}', getattr(v, 'attribute', None), getattr(v, 'errmsg', None), getattr(v, 'errno', None)]
                         for v in e.errors]
    mro = [f'{c.__module__}.{c.__name__}' for c in type(e).__mro__]
    out['is_validation_error'] = 'middlewared.service_exception.ValidationError' in mro
    return out


clients = {}
for call in spec['calls']:
    py = call.get('py_exceptions', True)
    if py not in clients:
        clients[py] = JSONRPCClient(spec['url'], py_exceptions=py)
        assert clients[py].call('auth.login_with_api_key', spec['key'])
    try:
        rv = clients[py].call(call['method'], *call['params'])
        out = {'raised': None, 'result': rv}
    except ClientException as e:
        out = {'raised': described(e)}
    except Exception as e:  # the appliance's own exception, unpickled
        out = {'raised': described(e)}
    print(json.dumps({'label': call['label'], **out}, default=repr), flush=True)
for c in clients.values():
    c.close()
