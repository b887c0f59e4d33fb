/** One JSON-RPC call on the connection being logged in. */
export type RpcCall = <T>(method: string, params: readonly unknown[]) => Promise<T>;

/** What a login may learn of the connection itself. */
export interface LoginLink {
  /** The DER certificate the server presented over TLS; null on a plain connection. */
  peerCertificate(): Buffer | null;
  /** `-v`: one line saying which mechanism was used (never key material). */
  trace?: ((line: string) => void) | undefined;
}
