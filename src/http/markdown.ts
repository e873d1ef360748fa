import MarkdownIt, { type Token } from 'markdown-it';

/**
 * The documentation's Markdown (the spec's descriptions, the guides in docs/): raw HTML in it is shown as text, never
 * interpreted. URLs with a scheme become links; a bare `README.md` stays text (`.md` is a top-level domain too).
 */
export function createMarkdown(): MarkdownIt {
  const markdown = new MarkdownIt({ html: false, linkify: true });
  markdown.linkify.set({ fuzzyLink: false });
  return markdown;
}

/** GitHub's anchor for a heading's text: lower case, punctuation dropped but `-` and `_`, each space a hyphen. */
export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a parsed document's headings, as GitHub makes them: a repeated one gets `-1`, `-2`, … */
export function headingAnchors(tokens: Token[]): Map<Token, string> {
  const anchors = new Map<Token, string>();
  const seen = new Map<string, number>();
  tokens.forEach((token, i) => {
    if (token.type !== 'heading_open') return;
    const text = (tokens[i + 1]?.children ?? [])
      .filter((child) => child.type === 'text' || child.type === 'code_inline')
      .map((child) => child.content)
      .join('');
    const base = slug(text);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.set(token, count === 0 ? base : `${base}-${count}`);
  });
  return anchors;
}
