/**
 * Every message the Median docs print, in one place (tool-errors.txt and
 * tool-endpoint-reference.txt). Mirrored WORD FOR WORD, with two rendering
 * rules applied consistently:
 *
 * - Code spans: the docs page renders them with backticks
 *   (`The manifest version is `N`…`). Backticks are page formatting, not part
 *   of the message, so we print without them: `The manifest version is 2, …`.
 * - Typography: as the docs print it. Outside code spans the docs curl quotes
 *   and apostrophes (`deployment’s`, `“low”`), inside code spans they stay
 *   straight (`"x"`); so do we. Code that matches a message Median sent
 *   compares both forms alike (`sameMessage`), as a server may send either.
 *
 * Where the docs cut a message with `…`, we complete it and say so with
 * "COMPLETED BY US". Messages the docs do not give at all are marked "OURS".
 */

/** The risks in the docs' order, as messages list them. */
const RISK_LIST = 'low, medium, reviewed, high';

/** Sync errors: the message after "Sync failed:" on the endpoint row. */
export const SYNC_MESSAGES = Object.freeze({
  refusedSignature:
    'The endpoint refused the signature. Open the route once to reconnect it with that deployment’s MEDIAN_KEY.',
  answeredStatus: (status: number | string): string => `The endpoint answered ${status}.`,
  notJson: 'The endpoint did not answer with JSON. Is the URL pointing at the route exported by median()?',
  didNotAnswer: 'The endpoint did not answer. Check the URL and that your server is up.',
  /** COMPLETED BY US: the docs stop at "…from the cloud…". */
  ownMachine: (origin: string): string =>
    `${origin} is this deployment’s own machine, not yours. Median calls your endpoint from the cloud, so a local address needs a tunnel.`,
  redirectedTo: (url: string): string => `The endpoint redirected to ${url}, which syncs never follow. Point it there instead.`,
  redirected: 'The endpoint redirected, which syncs never follow.',
  privateAddress: 'That address points inside a network, not at the internet.',
  tooLarge: 'The manifest is too large to read.',
  nameClash: (name: string, url: string): string =>
    `The tool name "${name}" already comes from ${url}. Tool names have to be unique across every endpoint.`,
  tooManyTools: (count: number, limit: number): string =>
    `These endpoints would declare ${count} tools together, and the organization limit is ${limit}.`,
  reservedName: (path: string, name: string): string => `${path} "${name}" is one of the agent’s own tools. Pick another name.`,
  descriptionTooLong: (path: string, max: number): string => `${path} is over ${max} characters.`,
  tooManyFields: (path: string, count: number, max: number): string =>
    `${path} has ${count} fields, and the most a tool can take is ${max}.`,
  schemaTooLong: (path: string, max: number): string => `${path} is over ${max} characters.`,
  versionMismatch: (version: number | string): string =>
    `The manifest version is ${version}, and this backend speaks version 1. Update @mediansh/agent-tools or Median, whichever is behind.`,
  couldNotSync: 'Could not sync the tools. Try again.',
  rateLimited: 'Too many requests. Wait a moment and try again.',
});

/**
 * Manifest shape problems. The docs give one example ("tools[2].inputSchema.
 * additionalProperties has to be false.") and say the messages name the field;
 * the rest follow that pattern and are OURS.
 */
export const MANIFEST_SHAPE_MESSAGES = Object.freeze({
  /** The docs' own example wording. */
  hasToBeFalse: (path: string): string => `${path} has to be false.`,
  notAnObject: (path: string): string => (path === '' ? 'The manifest has to be a JSON object.' : `${path} has to be an object.`),
  notAnArray: (path: string): string => `${path} has to be an array.`,
  notAString: (path: string): string => `${path} has to be a string.`,
  notANumber: (path: string): string => `${path} has to be a number.`,
  required: (path: string): string => `${path} is required.`,
  typeObject: (path: string): string => `${path} has to be "object".`,
  stringArray: (path: string): string => `${path} has to be an array of field names.`,
  unknownRequired: (path: string, field: string): string => `${path} names "${field}", which is not in properties.`,
  badRisk: (path: string): string => `${path} has to be one of: ${RISK_LIST}.`,
  badName: (path: string, name: string): string =>
    `${path} "${name}" is invalid. Names start with a letter, then letters, numbers and underscores, up to 64 characters.`,
  duplicateName: (path: string, name: string, firstPath: string): string =>
    `${path} "${name}" is already used by ${firstPath}. Tool names have to be unique.`,
});

/** Sync request errors (asking for a sync fails before any sync runs). */
export const SYNC_REQUEST_MESSAGES = Object.freeze({
  noEndpoint: 'Connect a tool endpoint before syncing.',
  endpointRequired: 'Pass the endpoint URL to sync when more than one is connected.',
  endpointNotFound: (url: string): string =>
    `No tool endpoint is connected at ${url}. Run GET /v1/tool-endpoints to see the ones that are.`,
  endpointGone: 'This tool endpoint is no longer available. Refresh the page.',
});

/** Connect errors (the answer to opening the route with the Bearer key). */
export const CONNECT_MESSAGES = Object.freeze({
  /** The docs' "syncing 2 tools", with the singular for one. */
  connected: (tools: number): string => `Connected. Median is syncing ${tools} tool${tools === 1 ? '' : 's'}.`,
  unauthorized:
    'Send Authorization: Bearer $MEDIAN_KEY to connect this endpoint. Manifest reads and tool calls require a valid median-signature.',
  endpointUnknown:
    'Median: MEDIAN_TOOLS_URL is not a URL. Set it to this route’s public address, like https://example.com/api/median.',
  unreachable: 'Median could not be reached to connect this route. Check the network and open it again.',
  invalidApiKey: 'That Median key does not match any organization. Copy the median_key_ key again from Settings under API.',
  legacyApiKey: 'This is a legacy API key. Create a Median key in Settings under API, set it as MEDIAN_KEY, and try again.',
  missingMedianKey: 'Create a Median key in Settings under API before connecting tools. That key belongs in MEDIAN_KEY on your server.',
  urlNotHttps: 'Use an HTTPS URL, or HTTP on localhost for testing.',
  urlPrivate: 'That address points inside a network, not at the internet.',
  urlTooLong: 'Endpoint URLs have to be 512 characters or fewer.',
  urlInvalid: 'Enter a valid URL.',
  duplicateEndpoint: 'An endpoint with this URL is already connected.',
  tooManyEndpoints: 'You can connect 10 tool endpoints at once. Remove one before adding another.',
  rateLimited: 'Too many requests. Wait a moment and try again.',
  refusedConnection: (status: number | string): string =>
    `Median refused the connection with HTTP ${status}. Check MEDIAN_KEY and try again.`,
});

/** Call errors: what Logs, request cards and `median tools test` show. */
export const CALL_MESSAGES = Object.freeze({
  noAnswerInTime: 'The endpoint did not answer in time.',
  answeredStatus: (status: number, detail?: string): string =>
    detail === undefined || detail === '' ? `The endpoint answered ${status}.` : `The endpoint answered ${status}. ${detail}`,
  redirected: 'The endpoint redirected, which tool calls never follow.',
  tooMuch: 'The endpoint answered with too much to read.',
  failedWithoutSaying: 'The tool failed without saying why.',
  /** The docs' `<reason>: <detail>`; without a detail the colon stays (`not_signed_in:`). */
  refusal: (reason: string, detail: string): string => `${reason}: ${detail}`.trimEnd(),
  unknownOutcomeTail: 'The action may have completed. Inspect its state before retrying and reuse the same tool call id.',
  toolUnavailable: 'The tool is no longer available.',
  noResult: 'The tool returned no result. Check whether the action completed before retrying.',
  requestFailed: 'The tool request failed. Check the result before retrying.',
  /** OURS: the docs name no message for a 2xx body that is not JSON. */
  notJson: 'The endpoint did not answer with JSON.',
  /** OURS: the docs name no message for a 2xx JSON body with neither result nor error. */
  neitherResultNorError: 'The endpoint answered without a result or an error.',
  /**
   * OURS: the docs only say the agent "is told only that the tool is not
   * answering"; this is the sentence we show as what it sees.
   */
  agentNotAnswering: 'The tool is not answering.',
  /** Default refusal reason. */
  defaultReason: 'tool_refused',
});

/**
 * Load errors: thrown when the route module loads. COMPLETED BY US where the
 * docs cut the message with `…` (completed from the table's Fix column).
 */
export const LOAD_MESSAGES = Object.freeze({
  /** COMPLETED BY US. */
  invalidName: (name: string): string =>
    `Median: the tool name "${name}" is invalid. Names start with a letter, then letters, numbers and underscores, up to 64 characters.`,
  /** COMPLETED BY US. */
  noDescription: (name: string): string =>
    `Median: the tool "${name}" has no description. Add one sentence that says when to use it.`,
  badRisk: (name: string, risk: string): string =>
    `Median: the tool "${name}" has risk "${risk}". Use “low”, “medium”, “reviewed” or “high”.`,
  /** COMPLETED BY US. */
  notSchemaBuilt: (field: string, name: string): string =>
    `Median: the field "${field}" on "${name}" was not built with the schema builder. Use p.string(), p.number(), p.boolean() or p.enum().`,
  noExecute: (name: string): string => `Median: the tool "${name}" has no execute function.`,
  twoPlugins: (name: string): string => `Median: two plugins both define a tool called "${name}". Take one of them out.`,
  navigationClash: (name: string): string =>
    `Median: your tool "${name}" has the same name as one from the navigation plugin. Rename yours, or drop the plugin.`,
  /** OURS: two of your own tools with one name (the docs only cover plugins). */
  duplicateTool: (name: string): string => `Median: two tools are both called "${name}". Rename one of them.`,
  /** The edge-runtime log line (not an error; no goToPage tool is served). */
  navigationNoPages: 'Median: navigation() found no pages, so the agent has no way to move anybody.',
});

/**
 * Route responses (what `median()` answers, and what the example route in
 * examples/ answers: one set). The docs give codes and causes, not the
 * message text; these messages are OURS, built from the causes and written
 * for whoever has to fix it.
 */
export const ROUTE_MESSAGES = Object.freeze({
  methodNotAllowed: (method: string): string => `Only GET and POST are answered, not ${method}.`,
  missingSecret:
    'Median: MEDIAN_KEY is not set on this server, so the route cannot check signatures. Copy the Median key from Settings under API into MEDIAN_KEY and restart.',
  missingSignature: 'No median-signature header. Median signs every manifest read and tool call; a proxy in front of this server may strip it.',
  missingSignatureOnGet:
    'No median-signature header. Median signs every manifest read; a proxy in front of this server may strip it. To connect this endpoint instead, send Authorization: Bearer $MEDIAN_KEY.',
  malformedSignature: 'The median-signature header is not t=<ms>,v1=<hex>.',
  staleTimestamp: 'The signature is more than 5 minutes from this server’s clock. Fix the clock.',
  invalidSignature:
    'The signature does not match this server’s MEDIAN_KEY: Median signed with a different key. Open the route once with Authorization: Bearer $MEDIAN_KEY to reconnect.',
  bodyNotObject: 'The body is not a JSON object.',
  bodyTooLarge: (limit: number): string => `The body is over ${limit} bytes.`,
  bodyNoTool: 'The body has no tool. A tool call is {tool, toolCallId, input, context}.',
  inputNotObject: 'input must be an object.',
  fieldMustBeString: (path: string): string => `${path} must be a string.`,
  fieldMustBeObject: (path: string): string => `${path} must be an object.`,
  fieldMustBeBoolean: (path: string): string => `${path} must be a boolean.`,
  fieldRequired: (path: string): string => `${path} is required.`,
  fieldMustBeRisk: (path: string): string => `${path} must be one of: ${RISK_LIST}.`,
  unknownOp: (op: string): string =>
    `Median asked for "${op}", which this package version does not know. Update @mediansh/agent-tools.`,
  unknownTool: (tool: string): string => `No tool is called "${tool}", so the synced list is behind. Sync the endpoint again.`,
  diagnosticsUnsupported: 'This route collects no diagnostics.',
  notFound: (path: string): string => `Nothing here. The Median route is at ${path}.`,
  internal: 'The route failed unexpectedly. See the server log.',
});

/** Whether two messages are the same text, whatever form their quotes and apostrophes take (’ ‘ “ ” or ' "). */
export function sameMessage(a: string, b: string): boolean {
  return straightQuotes(a) === straightQuotes(b);
}

/** The message with curly quotes and apostrophes made straight, for matching. */
export function straightQuotes(text: string): string {
  return text.replace(/[‘’]/g, "'").replace(/[“”]/g, '"');
}

/**
 * invalid_input messages, word for word from the docs: they name the first
 * failing field.
 */
export const INVALID_INPUT_MESSAGES = Object.freeze({
  required: (field: string): string => `${field} is required.`,
  mustBeString: (field: string): string => `${field} must be a string.`,
  mustBeNumber: (field: string): string => `${field} must be a number.`,
  mustBeBoolean: (field: string): string => `${field} must be a boolean.`,
  mustBeOneOf: (field: string, values: readonly string[]): string => `${field} must be one of: ${values.join(', ')}.`,
  unexpectedField: (field: string, allowed: readonly string[]): string =>
    `Unexpected field "${field}". This tool's input allows: ${allowed.join(', ')}.`,
});

/**
 * Approval and run errors (tool-errors.txt), word for word: what approving,
 * denying or running a tool answers.
 */
export const RUN_MESSAGES = Object.freeze({
  settled: 'This request has already been reviewed.',
  expiredConversationEnded: 'This request expired because the conversation ended.',
  expiredNoDecision: 'This request expired without a decision.',
  notFound: 'This request is unavailable in your inbox.',
  /** No endpoint declares the tool. */
  notSwitchedOn: (tool: string): string => `${tool} is not one of your switched on tools.`,
  /** An endpoint declares it, but its switch is off (or its endpoint is not usable). */
  unavailableOrDisabled: (tool: string): string => `${tool} is unavailable or disabled. Check its settings in Agent > Tools.`,
  tooManyRunning: 'Three tools are already running in this conversation. Wait for one to finish.',
  conversationArchived: 'Move this conversation out of the archive before running a tool.',
  conversationIdOrAs: 'Use conversationId or as, not both. A conversation uses its stored visitor identity.',
  /** What the thread shows when an approved call fails ("What the agent does when a tool fails"). */
  didNotRun: (tool: string, error: string): string => `${tool} did not run: ${error}`,
});

/**
 * invalid_input when a teammate runs or approves a tool: the docs' two
 * examples ("orderNumber is needed to run this.", "days has to be a
 * number."); the other kinds follow the same pattern and are OURS.
 */
export const RUN_INPUT_MESSAGES: typeof INVALID_INPUT_MESSAGES = Object.freeze({
  required: (field: string): string => `${field} is needed to run this.`,
  mustBeString: (field: string): string => `${field} has to be a string.`,
  mustBeNumber: (field: string): string => `${field} has to be a number.`,
  mustBeBoolean: (field: string): string => `${field} has to be true or false.`,
  mustBeOneOf: (field: string, values: readonly string[]): string => `${field} has to be one of: ${values.join(', ')}.`,
  unexpectedField: (field: string, allowed: readonly string[]): string =>
    allowed.length === 0 ? `${field} is not an input of this tool. It takes none.` : `${field} is not an input of this tool. It takes: ${allowed.join(', ')}.`,
});
