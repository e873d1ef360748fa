import { setTimeout as delay } from 'node:timers/promises';

/**
 * Waits for an observable state: calls `check` until it returns something truthy (which it resolves with), at most
 * `attempts` times, `intervalMs` apart; past that it fails naming `what`. The one way the suites wait: a bounded
 * poll, never a fixed sleep that assumes how long something takes.
 */
export async function until<T>(
  what: string,
  check: () => T | Promise<T>,
  { attempts = 200, intervalMs = 25 } = {},
): Promise<NonNullable<T>> {
  for (let attempt = 1; ; attempt++) {
    const value = await check();
    if (value) return value;
    if (attempt >= attempts) throw new Error(`gave up waiting (${attempts} looks, ${intervalMs} ms apart) for ${what}`);
    await delay(intervalMs);
  }
}
