import { stoppedBy } from '../error-catalogue.js';
import { StorError } from '../errors.js';
import type { DownloadRequest, Transport, UploadRequest } from '../transport/transport.js';

/**
 * What a command run inside the session agent meets once SIGINT or SIGTERM reached it while it had
 * no handler of its own: its process would have died there, so nothing new of it may start.
 */
export function interruptedError(stopped: AbortSignal): StorError {
  const signal = stopped.reason === 'SIGTERM' ? 'SIGTERM' : 'SIGINT';
  return new StorError(stoppedBy(signal), `interrupted by ${signal}; nothing more was sent to the appliance`);
}

/** Throws interruptedError once `stopped` is aborted. */
export function throwIfStopped(stopped: AbortSignal): void {
  if (stopped.aborted) throw interruptedError(stopped);
}

/**
 * `transport` as a command in the agent uses it: once `stopped` is aborted (CommandSetting.stopped), every
 * call, upload and download, and so every poll of a job wait, fails at once without reaching the
 * appliance. One already under way is left to finish or fail: its outcome is unknown, as it would
 * be for a process killed while waiting for it. Closing is never refused.
 */
export function stoppable(transport: Transport, stopped: AbortSignal): Transport {
  return {
    target: transport.target,
    call<T = unknown>(method: string, params?: readonly unknown[]): Promise<T> {
      return stopped.aborted ? Promise.reject(interruptedError(stopped)) : transport.call<T>(method, params);
    },
    upload(request: UploadRequest) {
      return stopped.aborted ? Promise.reject(interruptedError(stopped)) : transport.upload(request);
    },
    download(request: DownloadRequest) {
      return stopped.aborted ? Promise.reject(interruptedError(stopped)) : transport.download(request);
    },
    close: () => transport.close(),
    // The connection it shares with other commands: what is asked once per connection
    // (commands/shared/target-release.ts) is then asked once for all the commands on it. Without it
    // every target of a fleet's `whoami` in the agent asked `stor.emulation` again: answered from
    // the pooled connection's memory, but copied and checked against the contract each time.
    ...(transport.sharedConnection ? { sharedConnection: () => transport.sharedConnection?.() } : {}),
  };
}
