import { UserError } from '../shared/errors.js';
import { TUNNEL_ERROR_CODES } from './tunnel-errors.js';

/**
 * An error of `@ngrok/ngrok` as a coded median-dev error with its fix. The
 * library's errors carry ngrok's code in `errorCode` when the ngrok service
 * answered (ERR_NGROK_4018 no authtoken, ERR_NGROK_105 an authtoken the
 * service does not know, ERR_NGROK_326/ERR_NGROK_320 a domain this account
 * may not use, ERR_NGROK_108 too many agent sessions); without a network the
 * service never answers and there is no code: "failed to connect session:
 * failed to establish tcp connection" (observed with 1.7.0 offline).
 */
export function ngrokError(error: unknown, domain: string | undefined): UserError {
  const code = (error as { errorCode?: unknown } | null)?.errorCode;
  const message = error instanceof Error ? error.message : String(error);
  switch (code) {
    case 'ERR_NGROK_4018':
      return missingAuthtokenError();
    case 'ERR_NGROK_105':
    case 'ERR_NGROK_107':
      return new UserError(TUNNEL_ERROR_CODES.ngrokAuthtokenInvalid, `ngrok refused the authtoken (${code}).`, {
        hint: 'Copy your authtoken again from https://dashboard.ngrok.com/get-started/your-authtoken into NGROK_AUTHTOKEN.',
        details: { ngrokCode: code },
      });
    case 'ERR_NGROK_326':
    case 'ERR_NGROK_320':
    case 'ERR_NGROK_313':
      return new UserError(TUNNEL_ERROR_CODES.ngrokDomainInvalid, `ngrok will not serve ${domain ?? 'that domain'} for this account (${code}).`, {
        hint: 'Use the static domain shown on https://dashboard.ngrok.com/domains (free accounts have one, <name>.ngrok-free.dev), or leave --domain out for a random one.',
        details: { ngrokCode: code },
      });
    case 'ERR_NGROK_108':
      return new UserError(TUNNEL_ERROR_CODES.ngrokFailed, 'ngrok refused another agent session for this account (ERR_NGROK_108): one is already running elsewhere.', {
        hint: 'Stop the other ngrok agent, or attach to it: --tunnel ngrok --attach.',
        details: { ngrokCode: code },
      });
    default:
      break;
  }
  if (typeof code === 'string') {
    return new UserError(TUNNEL_ERROR_CODES.ngrokFailed, `ngrok failed (${code}): ${message}`, {
      hint: `See https://ngrok.com/docs/errors/${code.toLowerCase()} for what it means.`,
      details: { ngrokCode: code },
    });
  }
  return new UserError(TUNNEL_ERROR_CODES.ngrokUnreachable, `ngrok could not reach its service: ${message}`, {
    hint: 'Check your network; median-dev keeps trying. Behind a firewall that blocks ngrok, try --tunnel cloudflared or localtunnel.',
  });
}

export function missingAuthtokenError(): UserError {
  return new UserError(TUNNEL_ERROR_CODES.ngrokAuthtokenMissing, '--tunnel ngrok needs your ngrok authtoken, and NGROK_AUTHTOKEN is not set.', {
    hint: 'Put NGROK_AUTHTOKEN=… (from https://dashboard.ngrok.com/get-started/your-authtoken) in .env.local or the environment.',
  });
}

export function notInstalledError(): UserError {
  return new UserError(TUNNEL_ERROR_CODES.ngrokNotInstalled, '--tunnel ngrok needs the @ngrok/ngrok package, which is not installed.', {
    hint: 'Install it beside median-dev: npm install @ngrok/ngrok (or npm install -g @ngrok/ngrok for a global median-dev). Or run the ngrok agent yourself and pass --attach.',
  });
}
