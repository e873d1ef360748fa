import { sql } from 'kysely';
import type { Db } from '../../db/connect.js';
import type { Metrics, Sample } from './metrics.js';

/** Counts past this are reported as this: a scrape never counts a table without bound. */
const COUNT_CAP = 100_000;

/**
 * What one running server adds to the gauges read at each scrape: its PostgreSQL pool (connections by state, requests
 * waiting, each wait's time), its rate limits' Redis breaker, and what the database says — kill switches engaged by
 * level, webhook deliveries pending, events not yet turned into deliveries. Answers the function that takes them
 * away again (a server's drain), so a stopped server's pool is never read.
 */
export function observeServer(metrics: Metrics, db: Db, stores: { state(): 'ok' | 'fail' | undefined }): () => void {
  const removers: (() => void)[] = [];
  const add = (name: string, read: Sample) => removers.push(metrics.sample(name, read));
  const pool = db.pool;
  if (pool) {
    add('db_client_connections_usage', () => {
      const { total, idle } = pool.counts();
      return [
        { labels: { state: 'idle' }, value: idle },
        { labels: { state: 'used' }, value: total - idle },
      ];
    });
    add('db_client_connection_pending_requests', () => [{ value: pool.counts().waiting }]);
    pool.onWait((seconds) => metrics.poolWait.observe(seconds));
    removers.push(() => pool.onWait(undefined));
  }
  add('ias_rate_limit_store_breaker_open', () => [{ value: stores.state() === 'fail' ? 1 : 0 }]);
  const kysely = db.kysely;
  add('ias_kill_switches_engaged', async () => {
    const rows = await sql<{ level: string; n: number }>`
      select case when scope = 'global' then 'global' else 'account' end as level, count(*)::int as n
      from kill_switches where engaged group by 1`.execute(kysely);
    const engaged = new Map(rows.rows.map((row) => [row.level, row.n]));
    return ['global', 'account'].map((level) => ({ labels: { level }, value: engaged.get(level) ?? 0 }));
  });
  add('ias_webhook_deliveries_pending', async () => {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from (select 1 from webhook_deliveries where status = 'pending' limit ${COUNT_CAP}) d`.execute(kysely);
    return [{ value: rows[0]?.n ?? 0 }];
  });
  add('ias_outbox_events_undispatched', async () => {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from (
        select 1 from events ev, webhook_dispatch w where w.name = 'events' and (ev.tx, ev.seq) > (w.tx, w.seq) limit ${COUNT_CAP}
      ) e`.execute(kysely);
    return [{ value: rows[0]?.n ?? 0 }];
  });
  return () => {
    for (const remove of removers) remove();
  };
}
