/**
 * The route's own words for the responses whose text the docs leave open
 * (tool-errors.txt, "Route responses", gives codes and causes only). Written
 * for whoever has to fix it. The docs' word-for-word messages (connect
 * errors, invalid_input, key errors) come from src/median's messages.
 */
export const ROUTE_RESPONSE_MESSAGES = Object.freeze({
  methodNotAllowed: (method: string) => `Only GET and POST are answered, not ${method}.`,
  missingSecret:
    'Median: MEDIAN_KEY is not set on this server, so the route cannot check signatures. Copy the Median key from Settings under API into MEDIAN_KEY and restart.',

  missingSignature:
    'No median-signature header. Median signs every manifest read and tool call; a proxy in front of this server may strip it.',
  missingSignatureOnGet:
    'No median-signature header. Median signs every manifest read; a proxy in front of this server may strip it. To connect this endpoint instead, send Authorization: Bearer $MEDIAN_KEY.',
  malformedSignature: 'The median-signature header is not t=<ms>,v1=<hex>.',
  staleTimestamp: "The signature is more than 5 minutes from this server's clock. Fix the clock.",
  invalidSignature:
    "The signature does not match this server's MEDIAN_KEY: Median signed with a different key. Open the route once with Authorization: Bearer $MEDIAN_KEY to reconnect.",

  bodyNotObject: 'The body is not a JSON object.',
  bodyTooLarge: (limit: number) => `The body is over ${limit} bytes.`,
  bodyHasNoTool: 'The body has no tool. A tool call is {tool, toolCallId, input, context}.',
  inputNotObject: 'input must be an object.',
  unknownOp: (op: string) =>
    `Median asked for op "${op}", which this route does not know. Update @mediansh/agent-tools.`,
  unknownTool: (tool: string) =>
    `No tool called "${tool}" on this route, so Median's synced list is behind. Sync the endpoint again.`,
  diagnosticsUnsupported: 'This route collects no diagnostics.',
  notFound: (path: string) => `Nothing here. The Median route is at ${path}.`,
  internal: 'The route failed unexpectedly. See the server log.',
});
