import { createHash } from 'node:crypto';
import type { components } from '../../generated/api.js';

export type Disclosure = components['schemas']['Disclosure'];

interface DisclosureVersion {
  version: string;
  title: string;
  effective_at: string;
  text: string;
}

// Published versions are never edited: a stored consent points at a version and the hash of its exact text.
// A change of wording is a new entry at the end, which becomes current and makes older consents outdated.
const VERSIONS: readonly DisclosureVersion[] = [
  {
    version: '2026-11-01',
    title: 'Investment advisory disclosure and consent to electronic records',
    effective_at: '2026-11-01T00:00:00Z',
    text: `# Investment advisory disclosure

This service helps you pursue financial goals by turning an investment policy that you define (risk limits,
allowed and blocked symbols and a target allocation) into proposed orders. Please read this disclosure
before you create or change a policy. Creating a policy records your consent to it.

## Paper trading only

The built-in broker is a paper-trading simulation. Orders it fills move simulated cash and simulated
positions at simulated prices; no security is bought or sold and no real money is deposited, invested or
withdrawn. Simulated prices and fills may differ materially from what a real market would have given, and
results achieved in simulation do not show what you would have achieved with real money.

## Investment risks and no guarantee

Investing involves risk, including the possible loss of all of the principal invested. Past performance,
long-run market averages and the probabilities this service computes for your goals are estimates from
statistical models with stated assumptions; they are not predictions and not promises. No outcome, return or
goal is guaranteed. Diversification and rebalancing do not ensure a profit or protect against loss in a
declining market. Nothing in this service is tax, legal or accounting advice.

## Automated orders and their controls

Ideas and orders may be generated automatically, including by rule-based engines and, where enabled, by a
language-model assistant whose output may be wrong. Every proposed order is checked against your current
policy; at approval it must pass the policy check again and the system's pre-trade risk gate (buying power,
price collars, quantity limits, duplicate-order and stale-price checks). An engaged kill switch, yours or the
operator's, stops all approvals. These controls reduce but do not eliminate the risk of unintended orders.
You remain responsible for the policy you set and for every order your API clients approve.

## Consent to electronic records and signatures

Under the U.S. Electronic Signatures in Global and National Commerce Act (E-SIGN Act, 15 U.S.C. 7001 et seq.),
you agree to receive this disclosure and related records electronically and to sign your consent
electronically. Your consent is recorded with this disclosure's version and the SHA-256 hash of its text, the
time, the API client, the IP address and the user agent of the request. You may withdraw consent at any time
by ceasing to use the service; withdrawal does not affect records made before it. You can retrieve the current
text at any time from GET /v1/disclosures/current and keep a copy. When this disclosure changes, a new version
is published and you must consent to it before you create another policy.
`,
  },
];

const CURRENT = VERSIONS[VERSIONS.length - 1]!;
const CURRENT_VIEW: Disclosure = Object.freeze({
  version: CURRENT.version,
  title: CURRENT.title,
  text: CURRENT.text,
  sha256: createHash('sha256').update(CURRENT.text, 'utf8').digest('hex'),
  effective_at: new Date(CURRENT.effective_at).toISOString(),
});

/** The disclosure a new policy must be consented to. */
export function currentDisclosure(): Disclosure {
  return { ...CURRENT_VIEW };
}
