import type { Resource, TextResourceContents } from '@modelcontextprotocol/sdk/types.js';
import type { Success } from '../application/use-cases.js';
import type { BearerOperationId } from '../auth/authorize.js';

/** A resource an assistant may read: another face of the operation that serves the same data, run as that operation. */
export interface ResourceDefinition<K extends BearerOperationId = BearerOperationId> {
  resource: Resource;
  operationId: K;
  /** The operation's answer as the resource's contents. */
  contents(value: Success<K>): Omit<TextResourceContents, 'uri' | 'mimeType'>;
}

function define<K extends BearerOperationId>(definition: ResourceDefinition<K>): ResourceDefinition {
  return definition as unknown as ResourceDefinition;
}

export const resources: ResourceDefinition[] = [
  define({
    resource: {
      uri: 'ias://disclosures/current',
      name: 'current-disclosure',
      title: 'Current disclosure',
      description:
        'The disclosure the account holder consents to when a policy is created (markdown). ' +
        'Its version, which createPolicy needs in consent.disclosure_version, and the SHA-256 of the text are in _meta ' +
        '(and from the getCurrentDisclosure tool).',
      mimeType: 'text/markdown',
    },
    operationId: 'getCurrentDisclosure',
    contents: ({ text, version, sha256, title }) => ({ text, _meta: { version, sha256, title } }),
  }),
  define({
    resource: {
      uri: 'ias://policies/current',
      name: 'current-policy',
      title: 'Current investment policy',
      description:
        "The account's investment policy in force (JSON, as getCurrentPolicy answers): risk limits, target allocation, consent record.",
      mimeType: 'application/json',
    },
    operationId: 'getCurrentPolicy',
    contents: (policy) => ({ text: JSON.stringify(policy) }),
  }),
];
