// The example tool route, for tests, the demo and the README quick start.
export { p, toInputSchema, isField, type Field, type FieldMap, type InputOf } from './field-builder.js';
export { defineTool, type ToolDefinition, type ToolContext } from './tool-definition.js';
export { validateInput, type InputCheck } from './input-validation.js';
export { createToolRoute, DEFAULT_MEDIAN_API_URL, type ToolRoute, type ToolRouteOptions } from './create-route.js';
export {
  startToolRouteServer,
  DEFAULT_ROUTE_PATH,
  type ToolRouteServer,
  type ToolRouteServerOptions,
} from './start-tool-route-server.js';
export { createDemoTools, type DemoToolsOptions } from './demo-tools.js';
export { navigation, type ToolPlugin, type NavigationOptions } from './plugins.js';
