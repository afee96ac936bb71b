import type { SignatureStatus } from '../median/signature.js';
import type { VerdictKind } from '../median/verdict-types.js';
import type { Color } from './color.js';

export function verdictColor(kind: VerdictKind): Color {
  switch (kind) {
    case 'answered':
      return 'green';
    case 'refused':
    case 'unknown-outcome':
      return 'yellow';
    case 'threw':
    case 'invalid-input':
      return 'magenta';
    case 'not-answering':
      return 'red';
    default: {
      const never: never = kind;
      return never;
    }
  }
}

/** An HTTP status's colour; no answer at all is red. */
export function statusColor(status: number | undefined): Color {
  if (status === undefined) return 'red';
  if (status < 300) return 'green';
  if (status < 500) return 'yellow';
  return 'red';
}

export interface Mark {
  text: string;
  color: Color;
}

/** The one-column signature mark: ✓ valid, · unchecked, ✗ anything else. */
export function signatureMark(signature: SignatureStatus): Mark {
  if (signature === 'valid') return { text: '✓', color: 'green' };
  if (signature === 'unchecked') return { text: '·', color: 'gray' };
  return { text: '✗', color: 'red' };
}
