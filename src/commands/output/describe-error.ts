import { E } from '../../core/error-catalogue.js';
import { RpcError, RPC_CODE, StorError, classifyRpcError, isRoleDenial } from '../../core/errors.js';
import { EXIT_FOR_KIND } from './exit-codes.js';

/** An error as stderr and `--json` show it, with the exit code it maps to. */
export interface DescribedError {
  code: number;
  kind: string;
  errorCode: string;
  message: string;
  hint?: string;
  details?: string[];
}

/**
 * The one mapping from errors to exit codes and stable codes: `run()` uses it for the command's
 * error, and commands that report several outcomes (a multi-file upload) use it per item.
 */
export function describeError(err: unknown): DescribedError {
  if (err instanceof StorError) {
    return {
      code: EXIT_FOR_KIND[err.kind],
      kind: err.kind,
      errorCode: err.code,
      message: err.message,
      ...(err.hint ? { hint: err.hint } : {}),
      ...(err.details?.length ? { details: err.details } : {}),
    };
  }
  if (err instanceof RpcError) {
    const kind = classifyRpcError(err);
    const details =
      err.code === RPC_CODE.INVALID_PARAMS ? err.triples.map(([attr, msg]) => `* ${attr ?? 'ALL'}: ${msg}`) : undefined;
    const message = err.code === RPC_CODE.INVALID_PARAMS ? 'the appliance rejected the parameters' : err.reason.trim();
    return {
      code: EXIT_FOR_KIND[kind],
      kind,
      errorCode: err.errname ?? String(err.code),
      message,
      ...(err.hint ? { hint: err.hint } : isRoleDenial(err) ? { hint: roleDenialHint(err.neededRoles) } : {}),
      ...(details ? { details } : {}),
    };
  }
  if (err instanceof Error && err.name === 'ExitPromptError') {
    // Ctrl-C at a prompt: nothing was changed.
    return {
      code: EXIT_FOR_KIND[E.INTERRUPTED.kind],
      kind: E.INTERRUPTED.kind,
      errorCode: E.INTERRUPTED.code,
      message: 'interrupted; nothing was changed',
    };
  }
  const message = err instanceof Error ? err.message : String(err);
  return {
    code: EXIT_FOR_KIND[E.INTERNAL.kind],
    kind: E.INTERNAL.kind,
    errorCode: E.INTERNAL.code,
    message,
    hint: 'this is a bug in stor; please report it with the command you ran',
  };
}

/** The appliance's `[EACCES] Not authorized` names no role; stor knows the method's from the contract. */
function roleDenialHint(roles: readonly string[] | undefined): string {
  if (!roles?.length) return 'the identity in use lacks a role this call needs; `stor whoami` lists its roles';
  const needed = roles.length === 1 ? roles[0] : `one of ${roles.join(', ')}`;
  return `the identity in use lacks the role this call needs: ${needed} (or FULL_ADMIN); \`stor whoami\` lists its roles`;
}
