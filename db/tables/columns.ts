// Column types the tables share: how PostgreSQL's timestamps, numerics and JSON read and write.
import type { ColumnType } from 'kysely';

export type Timestamp = ColumnType<Date, Date | string, Date | string>;
export type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
/** numeric columns: strings on the way out (exact), strings or numbers on the way in. */
export type Numeric = ColumnType<string, string | number, string | number>;
export type Json<T> = ColumnType<T, string, string>;
