/** The pages' elements by id: the server renders them, so a missing one is a bug, not a state. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} is missing from the page`);
  return element as T;
}

export const input = (id: string): HTMLInputElement => byId<HTMLInputElement>(id);

/** Facts the server hands the page as data-* attributes of <body> (no inline script). */
export const facts = (): DOMStringMap => document.body.dataset;

/** "12.50" or "12,50" as typed: the number, or null when it is not a positive decimal. */
export function typedAmount(text: string): number | null {
  const raw = text.trim().replace(',', '.');
  const amount = Number(raw);
  return /^\d+(\.\d+)?$/.test(raw) && amount > 0 ? amount : null;
}
