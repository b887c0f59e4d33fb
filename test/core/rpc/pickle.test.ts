/**
 * stor's pickle writer (src/core/rpc/pickle.ts) read back by Python's own `pickle.loads`: JSON
 * values, integers past 32 bits, floats, text beyond ASCII, nested lists and dicts, and a class
 * called with its arguments and then given its state, as `BaseException.__reduce__` asks.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { pickle, PyObject } from '../../../src/core/rpc/pickle.js';

const LOADS = `
import base64, json, pickle, sys
v = pickle.loads(base64.b64decode(sys.stdin.read()))
def plain(x):
    if isinstance(x, BaseException):
        return {'class': type(x).__name__, 'args': [plain(a) for a in x.args], 'dict': {k: plain(w) for k, w in vars(x).items()}}
    if isinstance(x, list): return [plain(i) for i in x]
    if isinstance(x, dict): return {k: plain(w) for k, w in x.items()}
    return x
print(json.dumps(plain(v)))
`;

function loads(bytes: Buffer): unknown {
  const r = spawnSync('python3', ['-c', LOADS], { input: bytes.toString('base64'), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout);
}

describe('the pickle writer, read by Python', () => {
  it('writes JSON values as pickle.loads gives them back', () => {
    const value = {
      n: null,
      t: true,
      f: false,
      small: -5,
      wide: 2 ** 40,
      negWide: -(2 ** 40) - 1,
      max: Number.MAX_SAFE_INTEGER,
      x: 1.5,
      s: 'Zürich ✓',
      list: [1, [2, {}], []],
      empty: {},
    };
    expect(loads(pickle(value))).toEqual(value);
  });

  it('builds an object by calling its class with its arguments, then sets its state as attributes', () => {
    const e = new PyObject('builtins', 'ValueError', ['bad', 3], { note: 'kept' });
    expect(loads(pickle(e))).toEqual({ class: 'ValueError', args: ['bad', 3], dict: { note: 'kept' } });
    expect(loads(pickle(new PyObject('builtins', 'KeyError', [])))).toEqual({ class: 'KeyError', args: [], dict: {} });
  });

  it('keeps a lone surrogate as Python does (surrogatepass), and a pair as its one character', () => {
    const value = ['/mnt/tank/\ud800lone', 'end\udfff', 'pair \ud83d\ude00 ok', '\udc00\ud800'];
    expect(loads(pickle(value))).toEqual(value);
  });

  it('never takes a JSON object for a class to call', () => {
    expect(loads(pickle({ module: 'os', name: 'system', args: ['true'] }))).toEqual({
      module: 'os',
      name: 'system',
      args: ['true'],
    });
  });
});
