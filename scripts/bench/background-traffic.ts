// The other traffic of the flood benches (scripts/bench-token-flood.ts, scripts/bench-heavy-flood.ts), from a process
// of its own as an attacker's would be: KIND=flood, CONNECTIONS connections of wrong secrets from addresses and client
// ids that never repeat (PHASE keeps them apart from one phase to the next); KIND=paced, cheap requests (GET of an
// unknown path, 404) at PER_SECOND; KIND=graphql-feasibility, GraphQL documents of ALIASES heavy goalFeasibility
// fields at PER_SECOND; KIND=mcp-feasibility, CALLS heavy evaluateGoalFeasibility tool calls at a time, each its own
// request, again as soon as all are answered (the last two with the bearer TOKEN); KIND=ideas (scripts/bench-quota-
// flood.ts), one account's idea generations: CONNECTIONS connections from each of ADDRESSES (local addresses, comma-
// separated, an agent each), back to back, taking turns over TOKENS (its clients' bearer tokens, comma-separated), a
// 429 counted with the policy it names. Says 'started' over IPC; on 'stop' it finishes what it sent and reports it.
// It exits with the bench, however that ends.
import http from 'node:http';
import { request } from './support.js';

const { URL: url, KIND: kind, CONNECTIONS, PER_SECOND, PHASE, TOKEN, TOKENS, ADDRESSES, ALIASES, CALLS } = process.env;
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
  request(`${url}${path}`, { ...options, agent }).then(
    (response) => count(response.status),
    () => count('error'),
  );

process.once('disconnect', () => process.exit(0));
const stopped = new Promise<void>((resolve) => process.once('message', () => resolve()));
let running = true;
const pending: Promise<void>[] = [];
if (kind === 'flood') {
  for (let c = 0; c < connections; c++) {
    pending.push(
      (async () => {
        for (let i = 0; running; i++) {
          const body = new URLSearchParams({
            grant_type: 'client_credentials',
            client_id: `ias_client_guess${PHASE}_${c}_${i}`,
            client_secret: 'wrong',
          }).toString();
          await send('/oauth/token', {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': `10.${PHASE}.${c}.${i % 250}` },
            body,
          });
        }
      })(),
    );
  }
} else if (kind === 'graphql-feasibility') {
  // Issue 20's document: 100-year goals with contributions, σ about 0.9, each field its own volatility.
  let document = 0;
  const sendDocument = () => {
    const fields = Array.from({ length: Number(ALIASES) }, (_, i) => {
      const volatility = (0.9 + ((document * 37 + i) % 100) / 10_000).toFixed(4);
      const goal = 'capital:10000,target:5000000,horizon_years:100,market:"US",monthly_contribution:2000';
      return `g${i}:goalFeasibility(input:{${goal},assumptions:{expected_return:0.3,volatility:${volatility}}}){probability}`;
    });
    document++;
    pending.push(
      request(`${url}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: `{${fields.join(' ')}}` }),
        agent,
      }).then(
        (response) => {
          // A document refused before it ran (no data: its limit's code), or each field's answer: computed, or its code.
          const { data, errors } = JSON.parse(response.body) as {
            data?: Record<string, unknown>;
            errors?: { extensions?: { code?: string } }[];
          };
          if (data === undefined) return count(`document ${response.status} ${errors?.[0]?.extensions?.code ?? 'error'}`);
          for (const value of Object.values(data ?? {})) if (value !== null) count('field computed');
          for (const error of errors ?? []) count(`field ${error.extensions?.code ?? 'error'}`);
        },
        () => count('error'),
      ),
    );
  };
  const timer = setInterval(sendDocument, 1000 / Number(PER_SECOND));
  void stopped.then(() => clearInterval(timer));
} else if (kind === 'mcp-feasibility') {
  const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const call = (n: number) =>
    request(`${url}/mcp`, {
      method: 'POST',
      headers,
      agent,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: n,
        method: 'tools/call',
        params: {
          name: 'evaluateGoalFeasibility',
          arguments: {
            capital: 10000,
            target: 5000000,
            horizon_years: 100,
            market: 'US',
            monthly_contribution: 2000,
            assumptions: { expected_return: 0.3, volatility: 0.9 + (n % 1000) / 100_000 },
          },
        },
      }),
    }).then(
      (response) => {
        if (response.status !== 200) return count(response.status);
        const { result } = JSON.parse(response.body) as { result?: { isError?: boolean; content?: { text?: string }[] } };
        count(result?.isError ? `tool error ${(JSON.parse(result.content?.[0]?.text ?? '{}') as { status?: number }).status}` : 'computed');
      },
      () => count('error'),
    );
  pending.push(
    (async () => {
      for (let batch = 0; running; batch++)
        await Promise.all(Array.from({ length: Number(CALLS) }, (_, i) => call(batch * Number(CALLS) + i)));
    })(),
  );
} else if (kind === 'ideas') {
  const tokens = TOKENS!.split(',');
  const body = JSON.stringify({ mode: 'invest_cash', market: 'US' });
  const policy = (problem: string) => {
    try {
      return (JSON.parse(problem) as { 'violated-policies'?: string[] })['violated-policies']?.join(',') ?? '?';
    } catch {
      return '?';
    }
  };
  let turn = 0;
  for (const localAddress of ADDRESSES!.split(',')) {
    const own = new http.Agent({ keepAlive: true, maxSockets: connections, localAddress });
    for (let c = 0; c < connections; c++)
      pending.push(
        (async () => {
          while (running) {
            const headers = { authorization: `Bearer ${tokens[turn++ % tokens.length]}`, 'content-type': 'application/json' };
            await request(`${url}/v1/ideas/generate`, { method: 'POST', headers, body, agent: own }).then(
              (response) => count(response.status === 429 ? `429 ${policy(response.body)}` : response.status),
              () => count('error'),
            );
          }
        })(),
      );
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
