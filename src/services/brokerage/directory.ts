import type { BrokerPort } from '../../brokers/port.js';

/** Which broker holds an account: the connected one's port, or none for the built-in paper broker (the default). */
export interface BrokerDirectory {
  portFor(accountId: string): Promise<BrokerPort | undefined>;
  /** The account trades through its broker now: this instance streams it without waiting for its next sweep. */
  touched?(accountId: string): void;
}

/** Every account on the paper broker: scripts and tests without connections. */
export const PAPER_ONLY: BrokerDirectory = { portFor: () => Promise.resolve(undefined) };

/** A broker's name as people read it, from the catalogue's id. */
export const brokerName = (id: string): string => (id === 'alpaca' ? 'Alpaca' : id === 'paper' ? 'the paper broker' : id);
