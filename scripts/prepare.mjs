// npm's `prepare`: runs at `npm ci`/`npm install` in the checkout, and again whenever npm packs the
// checkout — `npm pack`, and `npx stor` in a checkout, which packs it into npx's cache
// (pacote's DirFetcher runs `prepare` in the directory itself). Rebuilding then rewrote dist/bundle
// under any stor running from it; a dist/ that is already this build is left alone, so the build
// happens once. `npm test` builds first the same way (its `pretest`): after `npm ci`, or when only
// tests changed, the build is already there — about 20 s saved on this project's 2-core machines
// (bench/HISTORY.md, 2026-11-29). `npm run build` always rebuilds. (tsc's incremental mode was
// tried and left out: it does not re-emit an output deleted from dist/.)
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { BUILD_ID_FILE, currentBuildId } from './build-id.mjs';

const built = existsSync(BUILD_ID_FILE) ? readFileSync(BUILD_ID_FILE, 'utf8').trim() : undefined;
if (built === currentBuildId() && existsSync('dist/cli.js')) {
  process.stdout.write(`stor: dist/ is already built from these sources (${built}); \`npm run build\` rebuilds it\n`);
} else {
  execFileSync('npm', ['run', 'build'], { stdio: 'inherit' });
}
