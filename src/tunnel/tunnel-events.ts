import type { ErrorCode } from '../shared/index.js';

/** Why an open tunnel stopped carrying requests. */
export type TunnelDownReason =
  | 'sockets-gone'
  | 'probe-failed'
  /** The event loop stood still far longer than any timer (the machine slept, the process was stopped): the tunnel server has most likely forgotten us. */
  | 'woke';

/** Facts a tunnel handle reports, as a discriminated union on `type`. */
export type TunnelEvent =
  | {
      type: 'opened';
      /** Public origin, no trailing slash. */
      url: string;
      subdomain: string | undefined;
      requestedSubdomain: string | undefined;
      /**
       * The URL differs from the one this handle had before, or, on the first
       * open, the server did not grant the requested subdomain.
       */
      isHostnameChange: boolean;
      previousUrl: string | undefined;
    }
  | { type: 'down'; reason: TunnelDownReason; message: string }
  | {
      type: 'reopen-failed';
      attempt: number;
      code: ErrorCode;
      message: string;
      /** 0 when `isFinal`. */
      retryInMs: number;
      /** The error cannot go away by asking again (isFinalTunnelError): no further reopen is scheduled. */
      isFinal: boolean;
      hint?: string;
    };

export type TunnelEventType = TunnelEvent['type'];
export type TunnelEventOf<K extends TunnelEventType> = Extract<TunnelEvent, { type: K }>;
