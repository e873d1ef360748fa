import { Agent, get } from 'node:http';

/**
 * GETs at a steady rate from a stock Node client, `http.Agent({ keepAlive: true, maxSockets })`, sent `maxSockets`
 * at a time so that every pooled socket carries its share (one at a time, answered in a millisecond, would keep
 * two or three sockets busy and the rest idle). Counts what the client saw: answers, answers that asked it to close
 * the connection, and failures by error code.
 */
export class KeepAliveLoad {
  readonly agent: Agent;
  answered = 0;
  /** Answers, and of those the ones with `Connection: close`, after `mark()`. */
  answeredAfterMark = 0;
  closingAfterMark = 0;
  readonly failures = new Map<string, number>();
  private marked = false;
  private inFlight = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly waiters: { answers: number; resolve: () => void }[] = [];
  private settled: (() => void) | undefined;

  constructor(
    private readonly url: string,
    private readonly perSecond: number,
    private readonly sockets: number,
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets: sockets });
  }

  start(): void {
    this.timer = setInterval(
      () => {
        for (let i = 0; i < this.sockets; i++) this.send();
      },
      (1000 * this.sockets) / this.perSecond,
    );
  }

  /** Sockets the agent holds now, busy or idle. */
  pooledSockets(): number {
    const count = (sockets: NodeJS.ReadOnlyDict<unknown[]>) => Object.values(sockets).reduce((n, list) => n + (list?.length ?? 0), 0);
    return count(this.agent.sockets) + count(this.agent.freeSockets);
  }

  /** Resolves once `answers` requests have been answered in all. */
  answeredAtLeast(answers: number): Promise<void> {
    if (this.answered >= answers) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ answers, resolve }));
  }

  /** From now on answers are counted apart (the moment a signal was sent). */
  mark(): void {
    this.marked = true;
  }

  /** Sends nothing more, waits for the requests in flight to end one way or the other, and frees the sockets. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    if (this.inFlight > 0) await new Promise<void>((resolve) => (this.settled = resolve));
    this.agent.destroy();
  }

  private send(): void {
    this.inFlight++;
    let done = false;
    const end = () => {
      if (done) return;
      done = true;
      if (--this.inFlight === 0) this.settled?.();
    };
    const req = get(this.url, { agent: this.agent }, (res) => {
      res.on('error', (error: NodeJS.ErrnoException) => this.fail(error, end));
      res.resume();
      res.on('end', () => {
        this.answered++;
        if (this.marked) {
          this.answeredAfterMark++;
          if (res.headers.connection === 'close') this.closingAfterMark++;
        }
        for (const waiter of this.waiters.filter((w) => this.answered >= w.answers)) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
        end();
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) => this.fail(error, end));
  }

  private fail(error: NodeJS.ErrnoException, end: () => void): void {
    const code = error.code ?? error.message;
    this.failures.set(code, (this.failures.get(code) ?? 0) + 1);
    end();
  }
}
