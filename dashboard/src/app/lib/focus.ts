/** A Svelte action: the element takes the focus when it appears (a question's answer button, so a keyboard user answers it next). */
export function focusOnShow(node: HTMLElement): void {
  node.focus();
}
