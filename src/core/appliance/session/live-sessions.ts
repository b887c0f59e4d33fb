import { collectionUpdate, type EventHub } from '../events.js';
import type { Session, SessionCredentials, TokenParent } from './session.js';

/*
 * The logged-in connections `auth.sessions` lists: 25.10.1's SessionManager.sessions
 * (MW/plugins/auth.py:119-214), which holds WebSocket connections only (REST and upload requests
 * authenticate per request and are never listed). Here: WebSocket connections and the embedded
 * target's in-process session.
 */

/** `credentials.dump()` (MW/auth.py:129-133, 152-159, 280-289): what a session shows of its login. */
function credentialsData(c: SessionCredentials, loginId: string | null | undefined): Record<string, unknown> {
  if (c.token)
    return {
      parent: dumpCredentials(c.token.parent.credentials, c.token.parent),
      login_id: loginId ?? null,
      username: c.username,
    };
  const data: Record<string, unknown> = {
    username: c.username,
    login_id: loginId ?? null,
    login_at: { $date: Math.floor(c.loginAt / 1000) * 1000 },
  };
  if (c.apiKey) data.api_key = { id: c.apiKey.id, name: c.apiKey.name };
  return data;
}

/** `dump_credentials` (MW/auth.py:324-328). */
function dumpCredentials(c: SessionCredentials, parent?: TokenParent) {
  return { credentials: c.type, credentials_data: credentialsData(c, parent ? parent.loginId : undefined) };
}

/** `str(app.origin)` (MW/utils/origin.py:82-88); the embedded target stands where a local UNIX socket would. */
function originText(session: Session): string {
  const { address, port, transport } = session.origin;
  if (transport === 'embedded')
    return `UNIX socket (pid=${process.pid} uid=${process.getuid?.() ?? 0} gid=${process.getgid?.() ?? 0})`;
  const host = address.includes(':') ? `[${address}]` : address;
  return `${host}:${port ?? 0}`;
}

/** `Session.dump()` (MW/plugins/auth.py:207-213): origin, credentials, created_at, secure_transport. */
export function sessionDump(session: Session) {
  return {
    origin: originText(session),
    ...dumpCredentials(session.credentials!),
    created_at: { $date: Math.floor(session.loggedInAt! / 1000) * 1000 },
    secure_transport: session.origin.secure,
  };
}

export class LiveSessions {
  /** In login order, which is `auth.sessions`' order (sorted by created_at, MW/plugins/auth.py:294-295). */
  private readonly sessions = new Set<Session>();

  constructor(private readonly events: EventHub) {}

  /** MW/plugins/auth.py:149-158: listed, and ADDED sent with the session's dump. */
  added(session: Session): void {
    this.sessions.add(session);
    if (this.events.silent) return;
    this.events.send(
      collectionUpdate('auth.sessions', 'ADDED', { fields: { id: session.id, ...sessionDump(session) } }),
    );
  }

  /** MW/plugins/auth.py:164-179: unlisted, and REMOVED sent with the id as its fields. */
  removed(session: Session): void {
    if (!this.sessions.delete(session)) return;
    this.events.send(collectionUpdate('auth.sessions', 'REMOVED', { fields: { id: session.id } }));
  }

  list(): Session[] {
    return [...this.sessions];
  }
}
