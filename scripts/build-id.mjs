// Which build this is (src/core/session/paths.ts): a hash of what the build is made from — the
// sources, the package and its locked dependencies, the build's own scripts and compiler
// settings — so a command is never handed to a session agent started from other code, and
// `prepare` and `pretest` (scripts/prepare.mjs) can tell a dist/ that is already this build.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const BUILD_ID_FILE = 'dist/bundle/build-id';

/** The id of a build of the checkout in `root` as it is now. */
export function currentBuildId(root = '.') {
  const hash = createHash('sha256');
  const sources = readdirSync(join(root, 'src'), { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.ts'))
    .sort();
  // The lock file names the dependency versions bundled in; a checkout npm packs has none.
  const lock = existsSync(join(root, 'package-lock.json')) ? ['package-lock.json'] : [];
  const inputs = [
    ...sources.map((f) => join('src', f)),
    'package.json',
    ...lock,
    'scripts/bundle.mjs',
    'scripts/build-id.mjs',
    'scripts/first-stage-sources.cjs',
    'tsconfig.json',
    'tsconfig.build.json',
  ];
  for (const f of inputs)
    hash
      .update(f)
      .update('\0')
      .update(readFileSync(join(root, f)))
      .update('\0');
  return hash.digest('hex').slice(0, 16);
}
