/** What a transport talks to; shown by `whoami` and in error messages. */
export type TargetInfo =
  | { kind: 'embedded'; stateDir: string }
  | { kind: 'remote'; url: string; profile?: string };

/**
 * The one interface every command uses to reach an appliance, chosen once per invocation:
 * the embedded appliance in this process, or a remote one over the network.
 * Errors: `RpcError` for what the appliance answered, `StorError` for everything else.
 */
export interface Transport {
  readonly target: TargetInfo;
  call<T = unknown>(method: string, params?: readonly unknown[]): Promise<T>;
  close(): Promise<void>;
}
