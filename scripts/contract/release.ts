import { compareContracts, nextVersion } from './diff.js';
import { pointerOf, type Change, type Json } from './describe.js';
import { changelogEntry, withEntry } from './report.js';

export interface Release {
  version: string;
  changes: Change[];
  /** openapi.yaml with its `info.version` set to `version`. */
  root: string;
  /** CHANGELOG.md with the release's entry on top. */
  changelog: string;
}

/** Every place that says `deprecated: true` without the day it took effect (`x-deprecated-at`). */
export function undatedDeprecations(document: Json): string[] {
  const found: string[] = [];
  const walk = (node: unknown, path: (string | number)[]) => {
    if (typeof node !== 'object' || node === null) return;
    const fields = node as Json;
    if (fields.deprecated === true && fields['x-deprecated-at'] === undefined) found.push(pointerOf(path));
    for (const [key, value] of Object.entries(fields)) walk(value, [...path, key]);
  };
  walk(document, []);
  return found;
}

/**
 * What releasing the current contract means, computed without writing: the next version (semver from the changes),
 * openapi.yaml and CHANGELOG.md as they become. Throws when there is nothing to release, when a change breaks clients
 * and `breaking` was not asked for, or when a deprecation lacks its `x-deprecated-at` (the `Deprecation` header's date).
 */
export function prepareRelease(released: Json, current: Json, root: string, changelog: string, today: string, breaking = false): Release {
  const changes = compareContracts(released, current, today);
  const version = nextVersion(String((released.info as Json).version), changes);
  if (!version) throw new Error('nothing to release: the contract is the released one');
  if (!breaking && changes.some((c) => c.kind === 'breaking'))
    throw new Error(`these changes break clients (make contract-check names them); a major release needs --breaking`);
  const undated = undatedDeprecations(current);
  if (undated.length > 0)
    throw new Error(
      `give each deprecation the day it takes effect (x-deprecated-at: YYYY-MM-DD) before releasing it: ${undated.join(', ')}`,
    );
  const versionLine = /^(info:\n(?:[ ].*\n)*? {2}version: ).*$/m;
  if (!versionLine.test(root)) throw new Error('openapi.yaml: no `version:` under `info:`');
  return {
    version,
    changes,
    root: root.replace(versionLine, `$1${version}`),
    changelog: withEntry(changelog, changelogEntry(version, today, changes)),
  };
}
