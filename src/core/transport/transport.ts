import type { Writable } from 'node:stream';

/** What a transport talks to; shown by `whoami` and in error messages. */
export type TargetInfo = { kind: 'embedded'; stateDir: string } | { kind: 'remote'; url: string; profile?: string };

/**
 * The one interface every command uses to reach an appliance, chosen once per invocation:
 * the embedded appliance in this process, or a remote one over the network.
 * Errors: `RpcError` for what the appliance answered, `StorError` for everything else.
 */
export interface Transport {
  readonly target: TargetInfo;
  call<T = unknown>(method: string, params?: readonly unknown[]): Promise<T>;
  /** Streams a local file into `filesystem.put` and waits for the job; resolves when it succeeded. */
  upload(request: UploadRequest): Promise<{ jobId: number }>;
  /**
   * Streams the file at appliance path `path` into `sink` (and ends it) through 25.10.1's
   * download path — core.download of filesystem.get, then its URL — and waits for the job;
   * resolves when it succeeded, with the bytes written. Never holds the file in memory.
   */
  download(request: DownloadRequest): Promise<{ jobId: number; bytes: number }>;
  close(): Promise<void>;
  /**
   * The connection this transport's calls go through now, when it is shared with other commands
   * (a session agent's lease, src/core/session/lease.ts): what is asked once per connection
   * (target-release.ts) is then asked once for all of them, not once per command.
   */
  sharedConnection?(): object | undefined;
}

export interface UploadRequest {
  /** Local file to read; streamed, never read whole into memory. */
  file: string;
  /** Its size, for the request's Content-Length and for progress. */
  size: number;
  /** Target path on the appliance, e.g. `/mnt/tank/docs/report.pdf`. */
  path: string;
  options: { mode?: number; append?: boolean };
  /** Bytes read from the file so far. */
  onProgress?: (bytes: number) => void;
  /**
   * Aborted (its reason a signal's name) when the operator stopped the command: a remote
   * transport cuts its POST off, so the appliance's put fails, and rejects with INTERRUPTED or
   * TERMINATED; a job already started is waited for. The embedded transport hears signals itself
   * (EmbeddedOptions.onSignal).
   */
  signal?: AbortSignal;
}

export interface DownloadRequest {
  /** The file on the appliance, e.g. `/mnt/tank/docs/report.pdf`. */
  path: string;
  /** Where the bytes go; ended when they are all there (also when the job wrote none), destroyed when the download fails. */
  sink: Writable;
  /** Bytes received so far. */
  onProgress?: (bytes: number) => void;
  /**
   * The size the appliance reported for the file: a download that brings more stops there, with
   * not a byte more in `sink`, and fails with DOWNLOAD_SIZE_MISMATCH.
   */
  size?: number;
}

/** The `filesystem.put` params an upload sends. */
export function putParams(request: UploadRequest): [string, { append: boolean; mode?: number }] {
  return [
    request.path,
    {
      append: request.options.append ?? false,
      ...(request.options.mode !== undefined ? { mode: request.options.mode } : {}),
    },
  ];
}
