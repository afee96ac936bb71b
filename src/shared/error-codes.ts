/**
 * Every error code median-dev produces, in one place (Vite keeps its string
 * codes in one constants file the same way). A `MedianDevError`'s code, an
 * `error` event's code and a control command's error code are an `ErrorCode`.
 * A new code is added here, in the group of the part that produces it.
 *
 * Codes that another program sent us (Median's API, a route, the daemon over
 * the control channel) are kept verbatim: `receivedErrorCode()` marks them.
 */

/** Codes in Median's docs (tool-errors.txt, tool-endpoint-reference.txt) we produce, pass on or match. */
const MEDIAN_CODES = [
  'approval_expired',
  'approval_not_found',
  'approval_settled',
  'conversation_archived',
  'duplicate_endpoint',
  'endpoint_not_found',
  'endpoint_required',
  'execution_failed',
  'invalid_api_key',
  'invalid_body',
  'invalid_input',
  'invalid_median_key',
  'invalid_request',
  'invalid_signature',
  'invalid_url',
  'legacy_api_key',
  'malformed_signature',
  'median_endpoint_unknown',
  'median_refused_connection',
  'median_unreachable',
  'method_not_allowed',
  'missing_median_key',
  'missing_secret',
  'missing_signature',
  'no_endpoint',
  'rate_limited',
  'stale_timestamp',
  'too_many_running',
  'too_many_tool_endpoints',
  'tool_not_found',
  'unknown_op',
  'unknown_tool',
] as const;

/** median-dev's own codes, by the part that produces them. */
const OWN_CODES = [
  // everywhere
  'aborted',
  'internal_error',
  // cli: flags, input, terminal
  'confirmation_needed',
  'input_file_unreadable',
  'invalid_input_json',
  'invalid_number',
  'invalid_offset',
  'invalid_time',
  'conflicting_id_flags',
  'invalid_port',
  'invalid_target',
  'invalid_tool_secret',
  'invalid_tools',
  'missing_key',
  'not_a_terminal',
  'tui_failed',
  'unknown_key',
  // config
  'invalid_url_flag',
  'invalid_route',
  'invalid_tunnel',
  'invalid_subdomain',
  'invalid_restart_policy',
  'public_url_needs_no_tunnel',
  'invalid_tunnel_flags',
  'invalid_ngrok_domain',
  'invalid_ssh_destination',
  'invalid_ssh_option',
  'ssh_destination_required',
  'env_file_unreadable',
  'env_file_unwritable',
  'env_file_not_regular',
  'data_dir_unwritable',
  'invalid_median_api_url',
  // daemon
  'daemon_already_running',
  'daemon_closed',
  'daemon_not_running',
  'no_tools_url',
  'not_in_demo',
  'tunnel_not_started',
  'tunnel_start_failed',
  'tunnel_open_failed',
  // child
  'child_closed',
  'child_spawn_failed',
  // control channel (command errors included)
  'bad_frame',
  'command_failed',
  'control_closed',
  'control_file_invalid',
  'control_file_write_failed',
  'control_listen_failed',
  'control_protocol_error',
  'control_refused',
  'control_timeout',
  'daemon_stopping',
  'invalid_command',
  'origin_refused',
  'unauthorized',
  'unknown_command',
  'upgrade_required',
  // proxy
  'proxy_listen_failed',
  'proxy_port_in_use',
  'proxy_loop',
  'target_is_proxy',
  'target_unreachable',
  'dev_server_starting',
  'route_unreachable',
  'route_load_error',
  // tunnel (tunnel/tunnel-errors.ts names them)
  'invalid_tunnel_host',
  'invalid_public_url',
  'tunnel_open_timeout',
  'tunnel_open_aborted',
  'tunnel_server_unreachable',
  'tunnel_registration_refused',
  'tunnel_bad_registration',
  'tunnel_unusable_url',
  'tunnel_connect_failed',
  'tunnel_closed',
  'tunnel_reopen_failed',
  'tunnel_client_gone',
  'tunnel_server_listen_failed',
  'tunnel_wait_aborted',
  'cloudflared_not_found',
  'cloudflared_rate_limited',
  'cloudflared_exited',
  'ssh_not_found',
  'ssh_host_key_unknown',
  'ssh_auth_failed',
  'ssh_forward_refused',
  'ssh_exited',
  'ngrok_not_installed',
  'ngrok_authtoken_missing',
  'ngrok_authtoken_invalid',
  'ngrok_domain_invalid',
  'ngrok_unreachable',
  'ngrok_failed',
  'ngrok_agent_unreachable',
  'ngrok_agent_no_endpoint',
  'ngrok_agent_bypasses_recorder',
  // recorder
  'call_ambiguous',
  'call_not_found',
  'data_dir_corrupt',
  'data_dir_not_a_folder',
  'data_dir_too_new',
  'data_dir_unreadable',
  'export_write_failed',
  'invalid_record',
  'record_write_failed',
  'recorder_closed',
  'store_unreadable',
  // replay
  'not_a_replay',
  'not_a_tool_call',
  'original_not_found',
  'replay_body_truncated',
  'replay_too_deep',
  'replay_needs_confirmation',
  'replay_unsigned_original',
  'curl_not_route',
  'replay_cancelled',
  // endpoints and the Median API client
  'endpoint_missing',
  'endpoint_not_connected',
  'endpoint_not_ours',
  'connect_answer_unexpected',
  'production_org',
  'median_bad_answer',
  'median_timeout',
  // emulator
  'emulator_listen_failed',
  'emulator_not_running',
  'not_emulator',
  'conversation_not_found',
  'conversation_ended',
  'invalid_tunnel_domain',
  'not_found',
  'tool_call_failed',
  // inspector (the browser page's server)
  'body_too_large',
  'inspector_host_refused',
  'inspector_link_spent',
  'inspector_listen_failed',
  'inspector_no_session',
  'inspector_off',
  'inspector_origin_refused',
  'invalid_json_body',
  'invalid_path',
  'invalid_query',
  'invalid_replay',
  'manifest_unreadable',
  // saved calls (calls save, test)
  'invalid_saved_call',
  'invalid_saved_name',
  'saved_call_exists',
  'saved_call_write_failed',
  'saved_call_too_deep',
  'no_saved_calls',
  'invalid_har',
  'production_target',
  'route_not_ready',
  // examples/tools-route
  'invalid_tool_definition',
  'port_in_use',
] as const;

export type MedianErrorCode = (typeof MEDIAN_CODES)[number];
export type OwnErrorCode = (typeof OWN_CODES)[number];

declare const receivedBrand: unique symbol;
/** A code another program sent (Median's API, a route, the daemon): kept as it came. */
export type ReceivedErrorCode = string & { readonly [receivedBrand]: true };

/** Every code a median-dev error or `error` event carries. */
export type ErrorCode = OwnErrorCode | MedianErrorCode | ReceivedErrorCode;

const KNOWN = new Set<string>([...MEDIAN_CODES, ...OWN_CODES]);

/** Whether `code` is one of ours or one of Median's documented codes. */
export function isKnownErrorCode(code: string): code is OwnErrorCode | MedianErrorCode {
  return KNOWN.has(code);
}

/** Marks a code that came from elsewhere (an API answer, a control frame) as an ErrorCode, unchanged. */
export function receivedErrorCode(code: string): ErrorCode {
  return code as ReceivedErrorCode;
}
