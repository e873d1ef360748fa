import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Token } from 'markdown-it';
import { createMarkdown, headingAnchors } from './markdown.js';

/** Where the guides are served: `/docs/guides` is docs/README.md (the index), `/docs/guides/<page>` docs/<page>.md. */
export const GUIDES_PATH = '/docs/guides';
/** The README's name among the guides: they continue its walk-through and link it. */
const README_PAGE = 'overview';

/** The top of the tree, which holds docs/: from src/http/ (the sources) or from dist/src/http/ (the compiled service). */
function treeTop(): URL {
  for (const base of ['../../', '../../../']) {
    const top = new URL(base, import.meta.url);
    if (existsSync(new URL('docs/README.md', top))) return top;
  }
  throw new Error(`the guides (docs/*.md) are missing above ${fileURLToPath(new URL('.', import.meta.url))}`);
}

export interface Guide {
  title: string;
  html: string;
}

/** The guides of docs/ and the README, rendered from their Markdown (raw HTML shown as text) once each, on first use. */
export class Guides {
  private readonly top = treeTop();
  private readonly markdown = createMarkdown();
  /** Each page's file in the tree, by the name it is served under ('' for the index). */
  private readonly files = new Map<string, string>([
    ['', 'docs/README.md'],
    [README_PAGE, 'README.md'],
    ...readdirSync(new URL('docs/', this.top))
      .filter((file) => file.endsWith('.md') && file !== 'README.md')
      .map((file): [string, string] => [file.slice(0, -3), `docs/${file}`]),
  ]);
  /** Where each file is served, for the links between them. */
  private readonly paths = new Map([...this.files].map(([name, file]) => [file, name === '' ? GUIDES_PATH : `${GUIDES_PATH}/${name}`]));
  private readonly rendered = new Map<string, Guide>();

  /** The pages besides the index, by the names they are served under. */
  get names(): string[] {
    return [...this.files.keys()].filter(Boolean);
  }

  /** The index without a name, a page by its name; undefined for a name that is no guide. */
  get(name = ''): Guide | undefined {
    const file = this.files.get(name);
    if (file === undefined) return undefined;
    let guide = this.rendered.get(file);
    if (!guide) this.rendered.set(file, (guide = this.render(file)));
    return guide;
  }

  private render(file: string): Guide {
    // The markers that tests find snippets by (`<!-- walkthrough:start -->`) are for the repository, not for readers.
    const text = readFileSync(new URL(file, this.top), 'utf8').replace(/^<!--.*-->\n/gm, '');
    const tokens = this.markdown.parse(text, {});
    for (const [heading, anchor] of headingAnchors(tokens)) heading.attrSet('id', anchor);
    for (const token of tokens) this.rewriteLinks(file, token.children ?? []);
    const h1 = tokens.findIndex((token) => token.type === 'heading_open' && token.tag === 'h1');
    return { title: tokens[h1 + 1]?.content ?? 'Guide', html: this.markdown.renderer.render(tokens, this.markdown.options, {}) };
  }

  /**
   * Where a link of `file` goes when served: a guide's path (`rate-limits.md#x` → `/docs/guides/rate-limits#x`), an
   * anchor or a URL unchanged; undefined for a file of the tree that is not served (ARCHITECTURE.md, examples/).
   */
  private servedHref(file: string, href: string): string | undefined {
    if (/^[a-z][a-z\d+.-]*:/i.test(href) || href.startsWith('#')) return href;
    const [path = '', anchor] = href.split('#', 2);
    const served = this.paths.get(posix.join(posix.dirname(file), decodeURIComponent(path)));
    return served === undefined ? undefined : `${served}${anchor === undefined ? '' : `#${anchor}`}`;
  }

  private rewriteLinks(file: string, children: Token[]): void {
    // An empty text token renders nothing: a dropped link's tags become that, and its text stays.
    const hide = (token: Token) => Object.assign(token, { type: 'text', content: '' });
    let dropped = false;
    for (const child of children) {
      if (child.type === 'link_open') {
        const href = this.servedHref(file, child.attrGet('href') ?? '');
        if (href !== undefined) child.attrSet('href', href);
        else hide(child);
        dropped = href === undefined;
      } else if (child.type === 'link_close' && dropped) {
        hide(child);
        dropped = false;
      }
    }
  }
}
