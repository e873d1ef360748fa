// The other traffic of the token-flood bench (scripts/bench-token-flood.ts), from a process of its own as an
// attacker's would be: KIND=flood, CONNECTIONS connections of wrong secrets from addresses and client ids that never
// repeat (PHASE keeps them apart from one phase to the next), or KIND=paced, cheap requests (GET of an unknown path,
// 404) at PER_SECOND. Says 'started' over IPC; on 'stop' it finishes what it sent and reports it. It exits with the
// bench, however that ends.
import http from 'node:http';
import { request } from './support.js';

const { URL: url, KIND: kind, CONNECTIONS, PER_SECOND, PHASE } = process.env;
const connections = Number(CONNECTIONS ?? 32);
const agent = new http.Agent({ keepAlive: true, maxSockets: Math.max(1, connections) });
const statuses: Record<string, number> = {};
let sent = 0;
const started = Date.now();

const count = (status: number | string) => {
  statuses[status] = (statuses[status] ?? 0) + 1;
  sent++;
};
const send = (path: string, options: { method?: string; headers?: Record<string, string>; body?: string }) =>
  request(`${url}${path}`, { ...options, agent }).then((response) => count(response.status), () => count('error'));

process.once('disconnect', () => process.exit(0));
const stopped = new Promise<void>((resolve) => process.once('message', () => resolve()));
let running = true;
const pending: Promise<void>[] = [];
if (kind === 'flood') {
  for (let c = 0; c < connections; c++) {
    pending.push((async () => {
      for (let i = 0; running; i++) {
        const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: `ias_client_guess${PHASE}_${c}_${i}`, client_secret: 'wrong' }).toString();
        await send('/oauth/token', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': `10.${PHASE}.${c}.${i % 250}` }, body });
      }
    })());
  }
} else if (Number(PER_SECOND) > 0) {
  const timer = setInterval(() => pending.push(send('/v1/unknown', {})), 1000 / Number(PER_SECOND));
  void stopped.then(() => clearInterval(timer));
}
process.send!('started');
await stopped;
running = false;
await Promise.all(pending);
process.send!({ sent, seconds: (Date.now() - started) / 1000, statuses }, () => process.exit(0));
