/** The colours every screen uses, by name: the TUI maps them to terminal attributes, the inspector to `c-<name>` classes, the CLI to ANSI codes. */
export type Color = 'green' | 'yellow' | 'red' | 'magenta' | 'cyan' | 'blue' | 'gray' | 'white';
