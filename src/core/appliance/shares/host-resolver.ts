import { readFile, stat } from 'node:fs/promises';
import { isIP } from 'node:net';

/*
 * How the emulator looks up an NFS share's host names. 25.10.1 asks `dnsclient.forward_lookup`
 * (MW/plugins/nfs.py:776-780), a dnspython Resolver on the appliance's name servers with its
 * default options (MW/plugins/dns_client.py:15-19, 70-102): the A and the AAAA records at once,
 * 4 s for each try of a name server (`timeout`) and 12 s for the whole name (`lifetime`).
 */

/** One try of a name server: dnsclient's `timeout` (MW/plugins/dns_client.py:18). */
const TRY_MS = 4_000;

/** A name looked up: its addresses, A records first, then AAAA (MW/plugins/dns_client.py:117-119, 145-152). */
export interface HostResolver {
  /** The addresses of `name`, [] when it has none. Answers what it has once `signal` aborts. */
  addresses(name: string, signal: AbortSignal): Promise<string[]>;
}

export interface NameServerOptions {
  /** Name servers as `127.0.0.1:5353`; by default the machine's (c-ares reads /etc/resolv.conf). */
  servers?: readonly string[];
  /** A hosts file answered from before any name server is asked; /etc/hosts by default. */
  hostsFile?: string;
}

/** A promise that settles when `signal` aborts. */
const abortOf = (signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });

/**
 * Names reserved by RFC 6761 that need no name server: `localhost` and below it are the loopback
 * addresses (§6.3), `.invalid` names exist nowhere (§6.4). Null for any other name.
 */
function specialUse(name: string): string[] | null {
  const lower = name.toLowerCase().replace(/\.$/, '');
  if (lower === 'localhost' || lower.endsWith('.localhost')) return ['127.0.0.1', '::1'];
  if (lower === 'invalid' || lower.endsWith('.invalid')) return [];
  return null;
}

/** A hosts file's names (lower case) and their addresses, IPv4 before IPv6, each in the file's order. */
function parseHostsFile(text: string): Map<string, string[]> {
  const byName = new Map<string, { v4: string[]; v6: string[] }>();
  for (const line of text.split('\n')) {
    const [address, ...names] = line.replace(/#.*/, '').trim().split(/\s+/);
    const version = address ? isIP(address) : 0;
    if (version === 0) continue;
    for (const name of names) {
      const entry = byName.get(name.toLowerCase()) ?? { v4: [], v6: [] };
      (version === 4 ? entry.v4 : entry.v6).push(address!);
      byName.set(name.toLowerCase(), entry);
    }
  }
  return new Map([...byName].map(([name, { v4, v6 }]) => [name, [...v4, ...v6]]));
}

/**
 * The emulator's resolver: the RFC 6761 names and the hosts file answered on the spot, any other
 * name asked of the name servers for A and AAAA at once, 4 s a try, until `signal` aborts (the
 * caller's bound, dnsclient's 12 s `lifetime`), when the queries still out are cancelled and what
 * came back is answered.
 */
export class NameServerResolver implements HostResolver {
  /** The hosts file as last read, kept while its size and modification time stay the same. */
  private hosts: { key: string; names: Map<string, string[]> } | null = null;

  constructor(private readonly options: NameServerOptions = {}) {}

  async addresses(name: string, signal: AbortSignal): Promise<string[]> {
    const special = specialUse(name);
    if (special) return special;
    const listed = (await this.hostsFile()).get(name.toLowerCase());
    if (listed) return listed;
    // Loaded at the first name the name servers are asked, not by every command that opens the
    // embedded appliance (it builds this resolver).
    const { Resolver } = process.getBuiltinModule('node:dns/promises');
    const resolver = new Resolver({ timeout: TRY_MS, tries: 3 });
    if (this.options.servers) resolver.setServers(this.options.servers);
    const answers: [string[], string[]] = [[], []];
    const queries = Promise.all([
      resolver.resolve4(name).then((a) => (answers[0] = a), ignore),
      resolver.resolve6(name).then((a) => (answers[1] = a), ignore),
    ]);
    await Promise.race([queries, abortOf(signal)]);
    resolver.cancel();
    return answers.flat();
  }

  private async hostsFile(): Promise<Map<string, string[]>> {
    const path = this.options.hostsFile ?? '/etc/hosts';
    try {
      const { size, mtimeMs } = await stat(path);
      const key = `${size}:${mtimeMs}`;
      if (this.hosts?.key !== key) this.hosts = { key, names: parseHostsFile(await readFile(path, 'utf8')) };
      return this.hosts.names;
    } catch {
      return new Map();
    }
  }
}

/** A failed query (no such name, no record of the type, no answer): no addresses of that type. */
const ignore = () => undefined;
