export type { DaemonEvent, DaemonEventName, DaemonSnapshot, ControlCommand, NewDaemonEvent } from './daemon-events.js';
export { errorEvent } from './error-event.js';
