"""Runs a list of calls through the official client (truenas_api_client.Client, as midclt does) and
prints one JSON line per call: the result as `midclt call` prints it, or the error as it prints it.
Input (stdin, JSON): {"url", "key", "steps": [{"label", "method", "params", "job", "session", "pre"}]}.
`session`: "admin" (one connection logged in with the key), "key" (a new one logged in with the key),
"anonymous" (a new one, not logged in). `pre`: calls made first on that connection. `job`: called as `midclt call -j` calls
(`Client.call(..., job=True)`: the job id, then its core.get_jobs events until it ends, its result
or its failure raised, truenas_api_client/__init__.py:329-358).
Params may hold {"$ref": label, "path": [...]} (an earlier step's result) or {"$totp": <ref>} (the
code for the secret in an otpauth:// URI)."""
import base64, hashlib, hmac, json as stdjson, pprint, struct, sys, time, urllib.parse
from truenas_api_client import Client, ClientException, ValidationErrors
from truenas_api_client import ejson

spec = stdjson.load(sys.stdin)
results = {}


def resolve(v):
    if isinstance(v, dict) and '$ref' in v:
        out = results[v['$ref']]
        for k in v.get('path', []):
            out = out[k]
        return out
    if isinstance(v, dict) and '$totp' in v:
        uri = resolve(v['$totp'])
        secret = urllib.parse.parse_qs(urllib.parse.urlparse(uri).query)['secret'][0]
        key = base64.b32decode(secret + '=' * (-len(secret) % 8))
        digest = hmac.new(key, struct.pack('>Q', int(time.time()) // 30), hashlib.sha1).digest()
        o = digest[-1] & 15
        return '%06d' % ((struct.unpack('>I', digest[o:o + 4])[0] & 0x7fffffff) % 1000000)
    if isinstance(v, dict):
        return {k: resolve(x) for k, x in v.items()}
    if isinstance(v, list):
        return [resolve(x) for x in v]
    return v


def printed(e):
    # What midclt's `call` writes to stderr for a ClientException (truenas_api_client/__init__.py:1083-1091).
    out = []
    if e.error:
        out.append(str(e.error))
    if e.trace:
        out.append(e.trace['formatted'])
    if e.extra:
        out.append(pprint.pformat(e.extra))
    return '\n'.join(out)


def run(c, step):
    try:
        for m, p in step.get('pre', []):
            results[step['label'] + ' ' + m] = c.call(m, *resolve(p))
        rv = c.call(step['method'], *resolve(step['params']), **({'job': True} if step.get('job') else {}))
        results[step['label']] = rv
        # midclt prints ints and strings bare and the rest with ejson.dumps; JSON for all keeps one decoder.
        return {'ok': True, 'json': ejson.dumps(rv)}
    except ClientException as e:
        return {'ok': False, 'class': type(e).__name__, 'errno': e.errno, 'stderr': printed(e),
                'error': e.error, 'trace_class': (e.trace or {}).get('class'),
                'pre': [ejson.dumps(results.get(step['label'] + ' ' + m)) for m, _ in step.get('pre', [])]}
    except (KeyError, IndexError, TypeError) as e:
        # An earlier call this one refers to failed: said as such, the other calls still run.
        return {'ok': False, 'class': 'UnresolvedRef', 'errno': None, 'stderr': f'no result to refer to: {e!r}'}


with Client(spec['url']) as admin:
    assert admin.call('auth.login_with_api_key', spec['key'])
    for step in spec['steps']:
        session = step.get('session', 'admin')
        if session == 'admin':
            out = run(admin, step)
        else:
            with Client(spec['url']) as c:
                if session == 'key':
                    assert c.call('auth.login_with_api_key', spec['key'])
                out = run(c, step)
        print(stdjson.dumps({'label': step['label'], **out}), flush=True)
