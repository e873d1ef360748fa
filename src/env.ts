// The environment's variables read one at a time, each checked: a bad value is a ConfigError naming the variable.

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

export type Env = Record<string, string | undefined>;

export function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

export function url(env: Env, name: string, fallback?: string): string | undefined {
  const raw = env[name] || fallback;
  if (raw === undefined) return undefined;
  try {
    const parsed = new URL(raw);
    if (!parsed.protocol) throw new Error();
  } catch {
    throw new ConfigError(name, `must be an absolute URL, got "${raw}"`);
  }
  return raw;
}

export function decimal(env: Env, name: string, fallback: string): string {
  const raw = env[name] || fallback;
  if (!/^\d{1,13}(\.\d{1,2})?$/.test(raw)) throw new ConfigError(name, `must be an amount like 100000 or 2500.50, got "${raw}"`);
  return raw;
}

/** A comma-separated list of web origins (scheme, host, port: no path), each in its serialised form. */
export function origins(env: Env, name: string): string[] {
  const raw = env[name]?.trim();
  if (!raw) return [];
  return raw.split(',').map((entry) => {
    const value = entry.trim();
    let parsed: URL;
    try {
      parsed = new URL(value);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error();
    } catch {
      throw new ConfigError(name, `must be a comma-separated list of http:// or https:// origins, got "${value}"`);
    }
    if (parsed.pathname !== '/' || parsed.search || parsed.hash || parsed.username || parsed.password) {
      throw new ConfigError(name, `"${value}" is not an origin (scheme://host[:port], no path), did you mean "${parsed.origin}"?`);
    }
    return parsed.origin;
  });
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A comma-separated list of durations (`5s,5m,30m,2h`), each a whole number with a unit (ms, s, m, h, d). */
export function durations(env: Env, name: string, fallback: string): number[] {
  const raw = (env[name] || fallback).trim();
  const parts = raw.split(',').map((part) => part.trim());
  const values = parts.map((part) => {
    const match = /^(\d{1,9})(ms|s|m|h|d)$/.exec(part);
    if (!match) throw new ConfigError(name, `must be comma-separated durations such as 5s,5m,30m,2h (units ms, s, m, h, d), got "${part}"`);
    return Number(match[1]) * UNITS[match[2]!]!;
  });
  if (values.length > 20) throw new ConfigError(name, 'may list at most 20 retries');
  if (values.some((v) => v > 7 * UNITS.d!)) throw new ConfigError(name, 'a retry may wait at most 7 days');
  return values;
}

export function flag(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(name, `must be true or false, got "${env[name]}"`);
}

export function secret(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (!raw) return undefined;
  if (raw.length < 32) throw new ConfigError(name, 'must be at least 32 characters (for example `openssl rand -base64 32`)');
  return raw;
}

/** An absolute http:// or https:// URL, without trailing slashes. */
export function httpUrl(env: Env, name: string, fallback: string): string {
  const raw = url(env, name, fallback)!;
  if (!/^https?:\/\//i.test(raw)) throw new ConfigError(name, `must be an http:// or https:// URL, got "${raw}"`);
  return raw.replace(/\/+$/, '');
}

/** A 256-bit key, written as 64 hexadecimal digits or in base64 (`openssl rand -base64 32`). */
export function key256(env: Env, name: string): Buffer | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  if (/^[0-9a-f]{64}$/i.test(raw)) return Buffer.from(raw, 'hex');
  if (/^[A-Za-z0-9+/]{43}=?$|^[A-Za-z0-9_-]{43}$/.test(raw)) return Buffer.from(raw, /[_-]/.test(raw) ? 'base64url' : 'base64');
  throw new ConfigError(
    name,
    `must be 32 random bytes, as 64 hexadecimal digits or 44 characters of base64 (openssl rand -base64 32); got ${raw.length} characters`,
  );
}

const OTLP_PROTOCOLS = ['http/protobuf', 'http/json', 'grpc'];

/**
 * Whether OpenTelemetry's own variables ask for traces (docs/tracing.md): an OTLP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`
 * or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) or an exporter (`OTEL_TRACES_EXPORTER`, not `none`), unless
 * `OTEL_SDK_DISABLED=true`. The SDK reads the rest itself; a protocol it does not speak is refused here rather than
 * silently replaced by its default.
 */
export function tracingRequested(env: Env): boolean {
  for (const name of ['OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL']) {
    const protocol = env[name]?.trim();
    if (protocol && !OTLP_PROTOCOLS.includes(protocol))
      throw new ConfigError(name, `must be one of ${OTLP_PROTOCOLS.join(', ')}, got "${protocol}"`);
  }
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim();
  if (exporter === 'none') return false;
  return Boolean(exporter || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}
