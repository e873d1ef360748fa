// `make contract-check`: the contract as openapi.yaml and openapi/ say now against the last released one
// (openapi/released/v1.json); fails, naming each change (rule, operation, JSON pointer), on anything that breaks a
// client or an SDK generated from the released contract (scripts/contract/diff.ts, docs/contract.md). Additions and
// deprecations pass; removing what was deprecated passes once its sunset has passed. `--today=YYYY-MM-DD` pins the
// day sunsets are judged by. Run from the tree's top (or the top of a copy of it).
import type { Json } from './contract/describe.js';
import { bundleContract, RELEASED, releasedContract, todayFrom } from './contract/bundle.js';
import { compareContracts } from './contract/diff.js';
import { allowedSummary, breakingReport } from './contract/report.js';

const released = releasedContract();
const changes = compareContracts(released, await bundleContract(), todayFrom(process.argv.slice(2)));
const version = String((released.info as Json).version);
const breaking = changes.filter((c) => c.kind === 'breaking');
if (breaking.length > 0) {
  console.error(`contract-check: ${breaking.length} breaking change(s) against the released contract ${version} (${RELEASED}):\n`);
  console.error(breakingReport(changes));
  console.error(
    '\nA client or an SDK generated from the released contract would break. Keep what it relies on (deprecate with\n' +
      'x-sunset instead of removing; add instead of changing), or release a new major version on purpose\n' +
      '(npm run contract:release -- --breaking; docs/contract.md).',
  );
  process.exit(1);
}
// Removing what was deprecated passes once its sunset has passed; it is still worth a look.
for (const change of changes.filter((c) => c.kind === 'removed'))
  console.log(`note: ${change.where}: ${change.text} (${change.note ?? 'removed'})`);
const allowed = allowedSummary(changes);
console.log(`contract-check: nothing breaks the released contract ${version}${allowed ? ` (unreleased: ${allowed})` : ''}`);
