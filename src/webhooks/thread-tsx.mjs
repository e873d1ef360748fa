// The webhook thread's entry when the service runs from its TypeScript sources (tests, `npm run dev`): tsx's
// `--import` hooks reach worker threads only from Node 22 on, so this plain JavaScript file registers them itself
// and then loads thread.ts (as compute/worker-tsx.mjs does for the compute pool). Compiled builds start
// dist/src/webhooks/thread.js directly.
import { register } from 'tsx/esm/api';

register();
await import('./thread.ts');
