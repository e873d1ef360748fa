/** Whether a PostgreSQL answers `select 1` at `url` within `timeoutMs` (default 3000). */
export function postgresAnswers(url: string, timeoutMs?: number): Promise<boolean>;
