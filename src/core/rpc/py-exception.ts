import { ERRNO, RpcError, type ValidationTriple } from '../errors.js';
import { pickle, PyObject, type PyValue } from './pickle.js';

/**
 * `data.py_exception` of an error, for a connection that set `py_exceptions`: 25.10.1 adds
 * `base64(pickle.dumps(exception))` to every error raised while a method ran, that is every error
 * with a `trace` (MW/api/base/server/ws_handler/rpc.py:85-98); the official client unpickles it
 * and raises it in place of its own ClientException (truenas_api_client/__init__.py:586-611, 851-855).
 *
 * The exception is rebuilt from what the error says: its trace's class and the data's reason,
 * errno and extra, with the arguments and attributes the class's `__init__` gives it
 * (MW/service_exception.py). `pickle.loads` imports the class, so the client must be able to
 * import `middlewared.service_exception`, as on the appliance itself.
 */
const SERVICE_EXCEPTION = 'middlewared.service_exception';

/** Exception classes of Python's `builtins` the emulator's errors name (errors.ts `rpcErrors.exception`). */
const BUILTINS = new Set([
  'Exception',
  'AttributeError',
  'IndexError',
  'KeyError',
  'NotImplementedError',
  'RecursionError',
  'RuntimeError',
  'TypeError',
  'ValueError',
]);

/** OSError and the subclasses Python picks by errno (PEP 3151): pickled as `(errno, strerror[, filename])`. */
const OS_ERRORS = new Set([
  'OSError',
  'BlockingIOError',
  'BrokenPipeError',
  'FileExistsError',
  'FileNotFoundError',
  'IsADirectoryError',
  'NotADirectoryError',
  'PermissionError',
]);

/** `ValidationError(attribute, errmsg, errno)` (MW/service_exception.py:27-37). */
function validationError([attribute, errmsg, errno]: ValidationTriple): PyObject {
  return new PyObject(SERVICE_EXCEPTION, 'ValidationError', [attribute, errmsg, errno], { attribute, errmsg, errno });
}

/**
 * `InstanceNotFound(errmsg)`: a ValidationError with no attribute and ENOENT (MW/service_exception.py:115-118),
 * what `get_instance` raises for a missing id (MW/service/crud_service.py:242) and libzfs's NOENT
 * becomes (MW/plugins/zfs_/snapshot.py:246-248). The emulator raises no other ValidationError of
 * that shape, so one so shaped is taken for it whatever its trace's class.
 */
function instanceNotFound(errmsg: string): PyObject {
  return new PyObject(SERVICE_EXCEPTION, 'InstanceNotFound', [errmsg], {
    attribute: null,
    errmsg,
    errno: ERRNO.ENOENT,
  });
}

/** The exception an error stands for, as `pickle` writes it; null for one 25.10.1 sends without (no trace) or an unknown class. */
export function pyExceptionOf(err: RpcError): PyObject | null {
  const data = err.data;
  const cls = data?.trace?.class;
  if (!data || !cls) return null;
  const triples = err.triples;
  switch (cls) {
    case 'CallError': {
      // `[ERRNAME] errmsg` is `str(CallError)` (MW/service_exception.py:21-23).
      const prefix = `[${data.errname}] `;
      const errmsg = data.reason.startsWith(prefix) ? data.reason.slice(prefix.length) : data.reason;
      return new PyObject(SERVICE_EXCEPTION, 'CallError', [errmsg, data.error], {
        errmsg,
        errno: data.error,
        extra: (data.extra ?? null) as PyValue,
      });
    }
    case 'ValidationErrors': {
      // `super().__init__(self.errors)`: the list is its only argument (MW/service_exception.py:54-56).
      const errors = triples.map(validationError);
      return new PyObject(SERVICE_EXCEPTION, 'ValidationErrors', [errors], { errors });
    }
    case 'InstanceNotFound':
    case 'ValidationError': {
      const triple = triples[0];
      if (!triple) return null;
      if (cls === 'InstanceNotFound' || (triple[0] === null && triple[2] === ERRNO.ENOENT))
        return instanceNotFound(triple[1]);
      return validationError(triple);
    }
    case 'MatchNotFound':
      return new PyObject(SERVICE_EXCEPTION, 'MatchNotFound', []);
  }
  if (OS_ERRORS.has(cls)) {
    const m = /^\[Errno (\d+)\] (.*?)(?:: '(.*)')?$/s.exec(data.reason);
    if (!m) return new PyObject('builtins', cls, [data.reason]);
    return new PyObject('builtins', cls, m[3] === undefined ? [Number(m[1]), m[2]!] : [Number(m[1]), m[2]!, m[3]]);
  }
  if (BUILTINS.has(cls)) return new PyObject('builtins', cls, [data.reason]);
  return null;
}

/** The error with `data.py_exception` added where 25.10.1 would add it; the error itself when not. */
export function withPyException(err: RpcError): RpcError {
  const exception = pyExceptionOf(err);
  if (!exception || !err.data) return err;
  const data = { ...err.data, py_exception: `${pickle(exception).toString('base64')}\n` };
  return Object.assign(new RpcError(err.code, err.rpcMessage, data), { neededRoles: err.neededRoles, hint: err.hint });
}
