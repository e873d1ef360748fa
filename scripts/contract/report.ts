import type { Change } from './describe.js';

/** At most this many places are listed under one change; the rest are counted. */
const PLACES_SHOWN = 5;

/** Changes with the same rule and text (one schema change seen through many operations), together, in first-seen order. */
function grouped(changes: Change[]): { first: Change; all: Change[] }[] {
  const groups = new Map<string, Change[]>();
  for (const change of changes) {
    const key = `${change.kind}|${change.rule ?? ''}|${change.text}`;
    groups.set(key, [...(groups.get(key) ?? []), change]);
  }
  return [...groups.values()].map((all) => ({ first: all[0]!, all }));
}

/** The breaking changes as `make contract-check` prints them: the rule, what changed, and each place with its pointer. */
export function breakingReport(changes: Change[]): string {
  const lines: string[] = [];
  for (const { first, all } of grouped(changes.filter((c) => c.kind === 'breaking'))) {
    lines.push(`✗ ${first.rule!}: ${first.text}${first.note ? ` (${first.note})` : ''}`);
    for (const change of all.slice(0, PLACES_SHOWN)) lines.push(`    ${change.where}  ${change.pointer}`);
    if (all.length > PLACES_SHOWN) lines.push(`    … and ${all.length - PLACES_SHOWN} more places`);
  }
  return lines.join('\n');
}

/** How many changes of each allowed kind, in a line: `3 added, 1 deprecated`. */
export function allowedSummary(changes: Change[]): string {
  const counts = new Map<string, number>();
  for (const change of changes.filter((c) => c.kind !== 'breaking')) counts.set(change.kind, (counts.get(change.kind) ?? 0) + 1);
  return [...counts].map(([kind, count]) => `${count} ${kind}`).join(', ');
}

/** `GET /v1/brokers (listBrokers)` as Markdown: `` `GET /v1/brokers` (`listBrokers`) ``. */
const markdownWhere = (where: string) => {
  const operation = /^([A-Z]+ \S+) \(([^)]+)\)$/.exec(where);
  if (operation) return `\`${operation[1]!}\` (\`${operation[2]!}\`)`;
  if (where.startsWith('problem type ')) return where.slice('problem type '.length);
  return where.startsWith('webhook ') ? `webhook \`${where.slice('webhook '.length)}\`` : where;
};

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

const SECTIONS = ['Added', 'Changed', 'Deprecated', 'Removed'] as const;

function sectionOf(change: Change): (typeof SECTIONS)[number] {
  if (change.kind === 'added') return 'Added';
  if (change.kind === 'deprecated') return 'Deprecated';
  if (change.kind === 'removed' || (change.kind === 'breaking' && / removed\b|operation removed/.test(change.text))) return 'Removed';
  return 'Changed';
}

/**
 * The CHANGELOG.md entry of a release (Keep a Changelog 1.1.0): its changes under Added, Changed, Deprecated and
 * Removed, each naming the operation (method, path, operationId) and the field, breaking ones marked **Breaking**,
 * the same change in many operations on one line. Changes to descriptions only are one line.
 */
export function changelogEntry(version: string, date: string, changes: Change[]): string {
  const sections = new Map<string, string[]>(SECTIONS.map((s) => [s, []]));
  const described = changes.filter((c) => c.kind !== 'documentation');
  for (const { first, all } of grouped(described)) {
    const wheres = [...new Set(all.map((c) => markdownWhere(c.where)))];
    const breaking = first.kind === 'breaking' ? '**Breaking:** ' : '';
    const note = first.note ? ` (${first.note})` : '';
    // One place: where, then what; the same change in many places: what, then every place.
    const line = wheres.length === 1 ? `${wheres[0]!}: ${first.text}${note}` : `${capitalized(first.text)}${note}: ${wheres.join(', ')}`;
    sections.get(sectionOf(first))!.push(`- ${breaking}${line}.`);
  }
  if (changes.some((c) => c.kind === 'documentation'))
    sections.get('Changed')!.push('- Descriptions and examples (nothing a client sends or receives changed).');
  const body = [...sections]
    .filter(([, lines]) => lines.length > 0)
    .map(([section, lines]) => `### ${section}\n\n${lines.join('\n')}`)
    .join('\n\n');
  return `## [${version}] - ${date}\n\n${body}\n`;
}

/** CHANGELOG.md with `entry` as its newest release: after the header, before the release that was newest. */
export function withEntry(changelog: string, entry: string): string {
  const first = changelog.search(/^## \[/m);
  if (first < 0) return `${changelog.trimEnd()}\n\n${entry}`;
  return `${changelog.slice(0, first)}${entry}\n${changelog.slice(first)}`;
}
