import { safeText } from '../shared/output-sanitiser.js';

/**
 * The page's one way to make elements. Text is only ever set as text (a text
 * node): nothing recorded is parsed as HTML, so a recorded `<script>` shows
 * as the characters it is, and the one output sanitiser writes control
 * characters (an escape sequence's ESC, bidi overrides) as `\u001b` text.
 */
type Child = Node | string | null | undefined | false;

export interface ElementProps {
  class?: string;
  title?: string;
  /** data-* attributes (tests find elements by them). */
  data?: Record<string, string>;
  attrs?: Record<string, string>;
  on?: Partial<{ [K in keyof HTMLElementEventMap]: (event: HTMLElementEventMap[K]) => void }>;
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: ElementProps = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props.class) node.className = props.class;
  if (props.title) node.title = props.title;
  for (const [key, value] of Object.entries(props.data ?? {})) node.dataset[key] = value;
  for (const [key, value] of Object.entries(props.attrs ?? {})) node.setAttribute(key, value);
  for (const [name, handler] of Object.entries(props.on ?? {})) node.addEventListener(name, handler as EventListener);
  append(node, children);
  return node;
}

export function append(node: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.appendChild(typeof child === 'string' ? document.createTextNode(safeText(child)) : child);
  }
}

/** Replaces every child of `node`. */
export function replaceChildren(node: Element, ...children: Child[]): void {
  node.replaceChildren();
  append(node, children);
}

/** Sets an element's text, through the same sanitiser; the same text again changes nothing (no layout to redo). */
export function setText(node: Element, text: string): void {
  const safe = safeText(text);
  if (node.textContent !== safe) node.textContent = safe;
}

/** Saves bytes the page fetched as a download named `name` (a plain link could not send the session header). */
export function saveFile(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = el('a', { attrs: { href: url, download: name } });
  document.body.appendChild(link);
  link.click();
  link.remove();
  // The download has its own copy once it started; the URL is not needed after that.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
