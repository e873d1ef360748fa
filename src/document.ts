import { readFileSync } from 'node:fs';
import type { Document } from 'openapi-backend';
import { EncodedBody } from './http/encoded.js';

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

export interface PublishedDocument {
  document: Document;
  /** Its JSON, serialised and compressed once. */
  encoded: EncodedBody;
  etag: string;
}

/** The document partners download: servers point at this deployment's BASE_URL. */
export function publishDocument(document: Document, baseUrl: string): PublishedDocument {
  const published = { ...document, servers: [{ url: baseUrl, description: 'This deployment' }] };
  const encoded = new EncodedBody(Buffer.from(JSON.stringify(published)));
  return { document: published, encoded, etag: encoded.etag };
}
