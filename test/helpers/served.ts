import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { clientEnv } from './client-env.js';
import { EMBEDDED_MEANT } from './embedded-meant.js';
import { spawnServe, type ServeProcess } from './serve-process.js';
import { tempDir } from './temp-dir.js';

/** A function that starts a real `stor serve` on a fresh state directory; every one it started stops after the file's last test. */
export function serveStoppedAfterAll(): () => Promise<ServeProcess> {
  const servers: ServeProcess[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });
  return async () => {
    const server = await spawnServe(tempDir());
    servers.push(server);
    return server;
  };
}

/** The client environment of the server's admin key, sessions off. */
export const envOf = (server: ServeProcess) => ({
  ...clientEnv(),
  STOR_URL: server.baseUrl,
  STOR_API_KEY: readFileSync(server.adminKeyFile, 'utf8').trim(),
  STOR_USER: 'truenas_admin',
  STOR_SESSION: 'off',
  ...EMBEDDED_MEANT,
});

/** Writes `text` to `dir/name` and returns that path. */
export const file = (dir: string, name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
