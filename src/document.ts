import { readFileSync } from 'node:fs';
import type { Document } from 'openapi-backend';

const bundled = new URL('../../generated/openapi.json', import.meta.url);
const bundledFromSource = new URL('../generated/openapi.json', import.meta.url);

/** The bundled contract from generated/ (works from src/ under tsx and from dist/src/ after a build). */
export function loadDocument(): Document {
  for (const candidate of [bundledFromSource, bundled]) {
    try {
      return JSON.parse(readFileSync(candidate, 'utf8')) as Document;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  throw new Error('generated/openapi.json is missing: run `npm run generate`');
}

/** The document partners download: servers point at this deployment's BASE_URL. */
export function publishDocument(document: Document, baseUrl: string): Document {
  return { ...document, servers: [{ url: baseUrl, description: 'This deployment' }] };
}
