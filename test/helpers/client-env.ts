import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServeProcess } from './serve-process.js';
import { tempDir } from './temp-dir.js';

/** A client machine: its own embedded state and profiles. */
export function clientEnv(): Record<string, string> {
  return { STOR_HOME: tempDir('stor-client-home-'), STOR_CONFIG_DIR: tempDir('stor-client-config-') };
}

/** A client machine pointed at a spawned `stor serve` (or a proxy in front of it) with the administrator's key. */
export function remoteEnv(server: ServeProcess, url = server.baseUrl): Record<string, string> {
  return { ...clientEnv(), STOR_URL: url, STOR_API_KEY: readFileSync(server.adminKeyFile, 'utf8').trim() };
}

/** A local file to upload, in a temporary directory of its own. */
export function localFile(name: string, bytes: Buffer | string): string {
  const path = join(tempDir('stor-e2e-files-'), name);
  writeFileSync(path, bytes);
  return path;
}
