// src/events: what the daemon reports (DaemonEvent, snapshot, facts), control commands, the key map: the types parts and clients share.
// Layer: the core layer. May import: src/median, src/shared, src/platform.
export type { DaemonEvent, DaemonEventName, DaemonSnapshot, ControlCommand, NewDaemonEvent, HealState, HealUnderWay, EmulatorApproval, EmulatorDecisionAnswer, TargetHow, TargetState } from './daemon-events.js';
export { DECIDERS, isDevServerLocalOnly } from './daemon-events.js';
export { errorEvent } from './error-event.js';
export { callEventLine, callEventOf, type CallEvent, type CallEventLine } from './call-event.js';
export { childExitText } from './child-exit.js';
export { commandErrorOf, type CommandError } from './command-error.js';
export type { DaemonFact, DaemonFactType, DaemonFactOf } from './daemon-facts.js';
export { KEY_MAP, actionOfKey, bindingOf, displayKey, keyHelpRows, keyLabel, restartHint, type KeyAction, type KeyBinding, type KeyHelpRow } from './key-map.js';
