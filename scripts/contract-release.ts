// `npm run contract:release` (`make release-contract`): releases the contract as openapi.yaml and openapi/ say now.
// Compares it with the last release (openapi/released/v1.json), sets `info.version` in openapi.yaml to the next
// version (semver: major for a breaking change or a removal, minor for additions, deprecations and other changes,
// patch for descriptions only), regenerates generated/, copies generated/openapi.json to openapi/released/v1.json and
// writes the release's CHANGELOG.md entry. A breaking release needs `--breaking`; every deprecation needs its
// `x-deprecated-at`. `--today=YYYY-MM-DD` dates the release. Commit what it changed.
import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import type { Json } from './contract/describe.js';
import { bundleContract, RELEASED, releasedContract, todayFrom } from './contract/bundle.js';
import { prepareRelease } from './contract/release.js';
import { breakingReport } from './contract/report.js';

const args = process.argv.slice(2);
const released = releasedContract();
let release;
try {
  release = prepareRelease(
    released,
    await bundleContract(),
    readFileSync('openapi.yaml', 'utf8'),
    readFileSync('CHANGELOG.md', 'utf8'),
    todayFrom(args),
    args.includes('--breaking'),
  );
} catch (error) {
  console.error(`contract:release: ${(error as Error).message}`);
  process.exit(1);
}
writeFileSync('openapi.yaml', release.root);
execFileSync('node', ['scripts/generate.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
copyFileSync('generated/openapi.json', RELEASED);
writeFileSync('CHANGELOG.md', release.changelog);
if (release.changes.some((c) => c.kind === 'breaking'))
  console.log(`Breaking, released with --breaking:\n${breakingReport(release.changes)}\n`);
console.log(
  `Released ${release.version} (was ${String((released.info as Json).version)}): openapi.yaml's info.version, generated/, ${RELEASED} and ` +
    `CHANGELOG.md. Read the entry, then commit them together.`,
);
