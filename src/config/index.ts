// src/config: flags' defaults, env files (reading and writing MEDIAN_TOOLS_URL), project state.
// Layer: the core layer. May import: src/shared, src/platform.
export { DEFAULTS, RESTART_ON_URL_CHANGE, TUNNEL_PROVIDERS, type RestartOnUrlChange, type TunnelProviderName } from './defaults.js';
export { readEnvFile } from './env-file-reader.js';
export { dataDirError, dataDirModeNote } from './data-dir-errors.js';
export { ENV_CASCADE, envCascadeFiles, missingKeyHint, readEnvCascade, type EnvCascade } from './env-cascade.js';
export { setEnvVariable, setEnvVariableInBytes } from './env-file-editor.js';
export { readProjectState, updateProjectState, STATE_VERSION, type ProjectState } from './project-state.js';
export {
  resolveConfig,
  resolveStartConfig,
  isTargetNamed,
  type TargetFrom,
  parseHttpUrl,
  type Config,
  type StartConfig,
  type CommonFlags,
  type StartFlags,
  type ConfigContext,
  type DaemonSettings,
} from './resolve-config.js';
export { ignoreNewDataDir } from './ignore-data-dir.js';
export { writeToolsUrl } from './env-file-writer.js';
export { readSettledEnvFile, settleEnvFileEarly, type EnvFileSnapshot } from './settled-env-file.js';
export { resolveTunnelSettings, DEFAULT_NGROK_API, type TunnelFlags, type TunnelSettings } from './tunnel-config.js';
