/**
 * A Svelte action for a box that scrolls sideways (a wide table on a phone): while its content
 * overflows it, the box takes the keyboard's focus, so it can be scrolled without a mouse (WCAG
 * 2.1.1; axe's scrollable-region-focusable). When everything fits it is no tab stop.
 */
export function focusableWhenScrolling(node: HTMLElement): { destroy: () => void } {
  const update = (): void => {
    if (node.scrollWidth > node.clientWidth + 1) node.tabIndex = 0;
    else node.removeAttribute('tabindex');
  };
  // The box resizes with the window, and grows taller as rows arrive.
  const observer = new ResizeObserver(update);
  observer.observe(node);
  update();
  return { destroy: () => observer.disconnect() };
}
