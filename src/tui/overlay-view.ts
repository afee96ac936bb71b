import { closeHint, overlayContent } from './format-chrome.js';
import { fitLine, lineWidth, type StyledLine } from './styled-text.js';
import type { TuiState } from './tui-state.js';

/** A box drawn over the screen, sized to it: the lines in view, and how far it scrolls. */
export interface OverlayView {
  title: string;
  width: number;
  height: number;
  /** Exactly what is drawn inside the border, each line `width - 4` columns. */
  lines: StyledLine[];
  /** Lines of content in view (the close hint aside). */
  rows: number;
  /** The largest `scroll`: 0 when everything fits. */
  maxScroll: number;
}

/**
 * The help (or a text) box at this screen size. Lines wrap to the box
 * instead of being cut, and a box taller than the screen scrolls, its close
 * hint kept in view: at 80×24 the help lost its last lines.
 */
export function overlayView(state: TuiState): OverlayView | null {
  const available = Math.max(10, state.width - 4) - 4;
  const content = overlayContent(state, available);
  if (!content) return null;
  const body = content.hasCloseHint ? [...content.lines, []] : content.lines;
  const maxHeight = Math.max(3, state.height - 2);
  const rows = Math.max(1, Math.min(body.length, maxHeight - 2 - (content.hasCloseHint ? 1 : 0)));
  const maxScroll = Math.max(0, body.length - rows);
  const requested = state.overlay && 'scroll' in state.overlay ? state.overlay.scroll : 0;
  const scroll = Math.max(0, Math.min(maxScroll, requested));
  const shown = body.slice(scroll, scroll + rows);
  const lines = content.hasCloseHint ? [...shown, closeHint(maxScroll > 0)] : shown;
  const title = maxScroll > 0 ? `${content.title} ${scroll + 1}–${scroll + rows} of ${body.length}` : content.title;
  const inner = Math.min(available, Math.max(title.length + 4, ...lines.map(lineWidth)));
  return { title: ` ${title} `, width: inner + 4, height: Math.min(maxHeight, lines.length + 2), lines: lines.map((line) => fitLine(line, inner)), rows, maxScroll };
}
