import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';

/**
 * Where webhooks may go: the public internet only, unless the operator allows private networks
 * (WEBHOOK_ALLOW_PRIVATE_NETWORKS, for development and tests). ipaddr.js names the range of an address; every
 * range but `unicast` (public) is refused, with the rule named. The check runs on the saved URL and again on every
 * address a name resolves to when a connection is made (./sender.ts), since a DNS answer can change after the URL
 * was saved.
 */
const RULES: Record<string, string> = {
  loopback: 'a loopback address (127.0.0.0/8, ::1)',
  private: 'a private address (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16)',
  uniqueLocal: 'a private IPv6 address (fc00::/7, where cloud metadata such as fd00:ec2::254 lives)',
  linkLocal: 'a link-local address (169.254.0.0/16, fe80::/10, where cloud metadata such as 169.254.169.254 lives)',
  carrierGradeNat: 'a carrier-grade NAT address (100.64.0.0/10, where cloud metadata such as 100.100.100.200 lives)',
  unspecified: 'the unspecified address (0.0.0.0, ::)',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
};

const MAX_URL_LENGTH = 2048;

export const ALLOW_PRIVATE_HINT =
  'webhooks go to the public internet only (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true allows private networks, for development)';

/** Why `address` may not be connected to (a sentence naming the rule), or null when it is a public address. */
export function refusedAddress(address: string): string | null {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  let parsed = ipaddr.parse(address);
  let mapped = '';
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
    mapped = `the IPv4-mapped form of ${parsed.toString()}, `;
  }
  // The IPv4-compatible form (::/96, deprecated by RFC 4291), which a URL writes `[::7f00:1]` for `[::127.0.0.1]` and
  // ipaddr.js takes for public unicast: whatever IPv4 address it embeds, no public endpoint is written so.
  if (parsed.kind() === 'ipv6' && parsed.range() === 'unicast' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0)) {
    const parts = (parsed as ipaddr.IPv6).parts;
    const embedded = ipaddr.fromByteArray([parts[6]! >> 8, parts[6]! & 255, parts[7]! >> 8, parts[7]! & 255]).toString();
    return `${address} is the IPv4-compatible form of ${embedded} (::/96, deprecated), never a public endpoint`;
  }
  const range = parsed.range();
  if (range === 'unicast') return null;
  return `${address} is ${mapped}${RULES[range] ?? `a non-public address (${range})`}`;
}

/** A destination refused by the rules; the message names the rule. */
export class RefusedDestinationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RefusedDestinationError';
  }
}

/**
 * The rules a saved URL must meet: absolute, `https://` (or `http://` with private networks allowed), no
 * credentials, and, when its host is an address or a `localhost` name, a public one. Names are checked again at each
 * connection. Answers the normalised URL, or throws RefusedDestinationError.
 */
export function checkEndpointUrl(raw: string, allowPrivate: boolean): string {
  if (raw.length > MAX_URL_LENGTH) throw new RefusedDestinationError(`is longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RefusedDestinationError('is not an absolute URL (https://example.com/webhooks)');
  }
  const schemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) {
    throw new RefusedDestinationError(
      allowPrivate ? 'must be an http:// or https:// URL' : `must be an https:// URL (${ALLOW_PRIVATE_HINT})`,
    );
  }
  if (url.username || url.password) throw new RefusedDestinationError('must not carry a user name or password');
  if (url.hash) throw new RefusedDestinationError('must not have a #fragment');
  if (!allowPrivate) {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (host === 'localhost' || host.endsWith('.localhost'))
      throw new RefusedDestinationError(`names ${host}, a loopback address; ${ALLOW_PRIVATE_HINT}`);
    if (isIP(host)) {
      const refused = refusedAddress(host);
      if (refused) throw new RefusedDestinationError(`${refused}; ${ALLOW_PRIVATE_HINT}`);
    }
  }
  return url.toString();
}
