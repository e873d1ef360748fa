import type { Calls } from './channel.js';
import { html, type Html } from './html.js';
import { must } from './present.js';

/** What an item may look at to know whether it is done. */
export interface ChecklistFacts {
  /** The visitor's calls, through the pipeline. */
  calls: Calls;
  /** The steps marked by following their link (ChecklistMarks), for items no other record shows. */
  marks: Set<string>;
}

/** One step of a new person's first hour: it ticks itself off when `done` finds it done. */
export interface ChecklistItem {
  id: string;
  label: string;
  /** Where the step is done. */
  href: string;
  help: string;
  done(facts: ChecklistFacts): Promise<boolean>;
}

/**
 * The first-hour checklist, in order. Adding a step is one entry here.
 */
export const CHECKLIST: ChecklistItem[] = [
  {
    id: 'policy',
    label: 'Sign your first investment policy',
    href: '/policy',
    help: 'Your limits and target allocation: nothing is proposed or approved without one.',
    done: async ({ calls }) => must(await calls.operation('listPolicies', { query: { limit: 1 } })).data.length > 0,
  },
  {
    id: 'client',
    label: 'Create an API client',
    href: '/developer',
    help: 'The credentials your integration or assistant uses, with the narrowest scopes it needs.',
    done: async ({ calls }) => must(await calls.action('listClients')).length > 0,
  },
  {
    id: 'docs',
    label: 'Read the API docs',
    href: '/go/docs',
    help: 'The reference with "Try it out", the MCP tools for assistants, every error explained.',
    done: async ({ marks }) => marks.has('docs'),
  },
  {
    id: 'webhook',
    label: 'Add a webhook endpoint',
    href: '/developer/webhooks',
    help: 'Hear about fills, blocks and the kill switch as they happen, signed, instead of polling.',
    done: async ({ calls }) => must(await calls.operation('listWebhookEndpoints', { query: { limit: 1 } })).data.length > 0,
  },
];

/** The checklist with each step ticked or not; nothing once every step is done. */
export async function checklist(calls: Calls): Promise<Html | ''> {
  const marks = must(await calls.action('checklistMarks'));
  const facts: ChecklistFacts = { calls, marks };
  const items = await Promise.all(CHECKLIST.map(async (item) => ({ item, done: await item.done(facts) })));
  const left = items.filter((i) => !i.done).length;
  if (left === 0) return '';
  return html`<section aria-labelledby="start-heading" class="checklist"><h2 id="start-heading">Get started: ${items.length - left} of ${items.length} done</h2>
<ol>${items.map(checklistEntry)}</ol></section>`;
}

function checklistEntry({ item, done }: { item: ChecklistItem; done: boolean }): Html {
  const label = done ? item.label : html`<a href="${item.href}">${item.label}</a>`;
  return html`<li class="${done ? 'done' : 'todo'}"><span class="tick" aria-hidden="true">${done ? '✓' : '○'}</span>
<span class="visually-hidden">${done ? 'Done:' : 'To do:'}</span> ${label}<p class="help">${item.help}</p></li>`;
}
