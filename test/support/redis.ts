import { createClient } from 'redis';

/** The shared Redis the suites count in (each test with a key prefix of its own); TEST_REDIS=none means there is none. */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const newClient = () => createClient({ url: TEST_REDIS_URL, socket: { connectTimeout: 2000, reconnectStrategy: false } });
export type TestRedis = ReturnType<typeof newClient>;

/**
 * A connected client of the test Redis, or undefined when none answers (the caller skips). One attempt, no retries:
 * a client left retrying in the background stays "open" and would hang the test's clean-up.
 */
export async function connectTestRedis(): Promise<TestRedis | undefined> {
  if (process.env.TEST_REDIS === 'none') return undefined;
  const client = newClient();
  client.on('error', () => {});
  try {
    await client.connect();
    return client;
  } catch {
    if (client.isOpen) client.destroy();
    return undefined;
  }
}

/** Deletes the test's keys and closes the client. */
export async function closeTestRedis(redis: TestRedis | undefined, prefix: string): Promise<void> {
  if (!redis?.isOpen) return;
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(keys);
  await redis.close();
}
