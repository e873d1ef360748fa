import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The Markdown a reader is given: README.md and the pages of docs/. */
export const markdownFiles = (): string[] => [
  'README.md',
  ...readdirSync('docs')
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => join('docs', name)),
];

/**
 * The fenced block between `<!-- name:start -->` and `<!-- name:end -->`, wherever it lives (README.md or a page of
 * docs/), with the file that holds it; a marker that is missing or shown twice fails the test that asks for it.
 */
export function snippet(name: string): { file: string; text: string } {
  const pattern = new RegExp(`<!-- ${name}:start -->\\n\`\`\`\\w+\\n([\\s\\S]*?)\`\`\`\\n<!-- ${name}:end -->`, 'g');
  const found = markdownFiles().flatMap((file) => [...readFileSync(file, 'utf8').matchAll(pattern)].map((m) => ({ file, text: m[1]! })));
  if (found.length !== 1)
    throw new Error(`the snippet "${name}" is in ${found.length} places (${found.map((f) => f.file).join(', ')}), not one`);
  return found[0]!;
}
