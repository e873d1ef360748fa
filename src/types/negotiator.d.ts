// negotiator 1.x (the version express uses): only what src/http/compression.ts calls. @types/negotiator describes 0.6,
// whose encoding() takes no preference order.
declare module 'negotiator' {
  import type { IncomingMessage } from 'node:http';
  export default class Negotiator {
    constructor(request: IncomingMessage);
    encoding(available: readonly string[], options?: { preferred?: readonly string[] }): string | undefined;
  }
}
