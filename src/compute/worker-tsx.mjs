// The compute pool's worker entry when the service runs from its TypeScript sources (tests, `npm run dev`): tsx's
// `--import` hooks reach worker threads only from Node 22 on (tsx skips them in workers on Node 20), so this file,
// plain JavaScript that any Node loads, registers them itself and hands on worker.ts's tasks. Compiled builds load
// dist/src/compute/worker.js directly and never read this file.
import { register } from 'tsx/esm/api';

register();
export const { feasibility } = await import('./worker.ts');
