import type { Kysely } from 'kysely';

/**
 * The trace an event was recorded in (issue 35, docs/tracing.md): the W3C `traceparent` of the span that wrote the
 * event, when tracing was on, so that each webhook delivery of the event carries it and joins the trace that caused
 * it. Null for events recorded without tracing (and for every event before this migration).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('events').addColumn('traceparent', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('events').dropColumn('traceparent').execute();
}
