import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { expect } from 'chai';
import type { Token } from 'markdown-it';
import { createMarkdown, headingAnchors } from '../src/http/markdown.js';

const markdown = createMarkdown();
/** The Markdown a reader follows links in: the top-level documents (README, ARCHITECTURE, BENCHMARKS, …) and docs/. */
const files = [
  ...readdirSync('.').filter((name) => name.endsWith('.md')),
  ...readdirSync('docs')
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name)),
].sort();

const parsed = new Map<string, Token[]>();
const tokensOf = (file: string) => {
  if (!parsed.has(file)) parsed.set(file, markdown.parse(readFileSync(file, 'utf8'), {}));
  return parsed.get(file)!;
};
const anchorsOf = (file: string) => new Set(headingAnchors(tokensOf(file)).values());
const linksOf = (file: string) =>
  tokensOf(file)
    .flatMap((token) => token.children ?? [])
    .flatMap((child) => (child.type === 'link_open' ? [child.attrGet('href')!] : child.type === 'image' ? [child.attrGet('src')!] : []));

/** Why a relative link from `file` goes nowhere, or undefined when it resolves (to a file or folder, and to a heading). */
function broken(file: string, href: string): string | undefined {
  if (href.startsWith('/')) return 'a path from the site root: write it relative to the file';
  const [path = '', anchor] = href.split('#', 2);
  const target = path === '' ? file : join(dirname(file), decodeURIComponent(path));
  if (relative('.', target).startsWith('..')) return 'outside the repository';
  if (!existsSync(target)) return `${target} does not exist`;
  if (anchor !== undefined && target.endsWith('.md') && !anchorsOf(target).has(anchor)) return `${target} has no heading #${anchor}`;
  return undefined;
}

describe('links in the Markdown documentation', () => {
  it('reads the README, ARCHITECTURE.md, BENCHMARKS.md and every page of docs/', () => {
    expect(files).to.include.members(['README.md', 'ARCHITECTURE.md', 'BENCHMARKS.md', 'docs/README.md']);
  });

  for (const file of files) {
    it(`${file}: every relative link and #anchor resolves`, () => {
      const relativeLinks = linksOf(file).filter((href) => !/^[a-z][a-z\d+.-]*:/i.test(href));
      const problems = relativeLinks.flatMap((href) => {
        const why = broken(file, href);
        return why ? [`${href}: ${why}`] : [];
      });
      expect(problems).to.deep.equal([]);
    });
  }

  it('makes anchors as GitHub does', () => {
    const anchors = [
      ...headingAnchors(markdown.parse('# Walk-through (curl)\n## Safe retries: `Idempotency-Key`\n## Notes\n## Notes\n', {})).values(),
    ];
    expect(anchors).to.deep.equal(['walk-through-curl', 'safe-retries-idempotency-key', 'notes', 'notes-1']);
  });

  it('finds a broken link, a missing heading and a link from the site root', () => {
    expect(broken('README.md', 'docs/none.md')).to.equal('docs/none.md does not exist');
    expect(broken('docs/rest.md', '../README.md#no-such-heading')).to.equal('README.md has no heading #no-such-heading');
    expect(broken('docs/rest.md', '#no-such-heading')).to.equal('docs/rest.md has no heading #no-such-heading');
    expect(broken('README.md', '/docs/rest.md')).to.match(/site root/);
    expect(broken('docs/rest.md', '../README.md#two-commands')).to.equal(undefined);
  });
});
