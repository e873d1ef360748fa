/**
 * HTML built with a tagged template that escapes every interpolated value unless it is already `Html`. A dozen
 * lines instead of a templating library: the pages are few, small and server-rendered, and escaping by default
 * is the one property that matters.
 */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** What a template may interpolate: markup already built, or text and numbers to escape; nothing for null, undefined, false. */
export type Interpolation = Html | string | number | boolean | null | undefined | readonly Interpolation[];

function render(value: Interpolation): string {
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Interpolation[]): Html {
  return new Html(strings.reduce((out, part, i) => out + part + (i < values.length ? render(values[i]) : ''), ''));
}

export function when(condition: unknown, content: () => Html): Html | '' {
  return condition ? content() : '';
}
