// npm's `prepare`: runs at `npm ci`/`npm install` in the checkout, and again whenever npm packs the
// checkout — `npm pack`, and `npx stor` in a checkout, which packs it into npx's cache
// (pacote's DirFetcher runs `prepare` in the directory itself). Rebuilding then rewrote dist/bundle
// under any stor running from it; a dist/ that is already this build is left alone, so the build
// happens once. `npm run build` always rebuilds.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { BUILD_ID_FILE, currentBuildId } from './build-id.mjs';

const built = existsSync(BUILD_ID_FILE) ? readFileSync(BUILD_ID_FILE, 'utf8').trim() : undefined;
if (built === currentBuildId() && existsSync('dist/cli.js')) {
  process.stdout.write(`stor: dist/ is already built from these sources (${built}); \`npm run build\` rebuilds it\n`);
} else {
  execFileSync('npm', ['run', 'build'], { stdio: 'inherit' });
}
