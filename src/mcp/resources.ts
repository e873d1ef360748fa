import type { Resource, TextResourceContents } from '@modelcontextprotocol/sdk/types.js';
import type { Actor, BearerOperationId } from '../auth/authorize.js';
import type { Services } from '../services/index.js';

/** A resource an assistant may read, authorized as the operation that serves the same data over REST. */
export interface ResourceDefinition<K extends BearerOperationId = BearerOperationId> {
  resource: Resource;
  operationId: K;
  read(services: Services, actor: Actor<K>): Promise<Omit<TextResourceContents, 'uri' | 'mimeType'>>;
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
        'The disclosure the account holder consents to when a policy is created (markdown). Its version, which createPolicy needs in consent.disclosure_version, and the SHA-256 of the text are in _meta (and from the getCurrentDisclosure tool).',
      mimeType: 'text/markdown',
    },
    operationId: 'getCurrentDisclosure',
    read: async (services, actor) => {
      const { text, version, sha256, title } = services.policies.currentDisclosure(actor);
      return { text, _meta: { version, sha256, title } };
    },
  }),
  define({
    resource: {
      uri: 'ias://policies/current',
      name: 'current-policy',
      title: 'Current investment policy',
      description: "The account's investment policy in force (JSON, as getCurrentPolicy answers): risk limits, target allocation, consent record.",
      mimeType: 'application/json',
    },
    operationId: 'getCurrentPolicy',
    read: async (services, actor) => ({ text: JSON.stringify(await services.policies.current(actor)) }),
  }),
];
